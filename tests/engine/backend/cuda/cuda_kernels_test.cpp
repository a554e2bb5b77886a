// The CUDA module's kernels one at a time (its KernelTable) against double-precision loops, as
// cpu_kernels_test.cpp checks the CPU kernels: conversions, every linear epilogue (bias, GELU,
// residual) through the GEMV and the GEMM finish, the norms, softmax, attention (one query, the
// word-alignment probabilities, flash), layout ops (permute included) and the cache writes.
// Tolerances are per output type: f32 results within 1e-6..1e-5 of the double result, f16 results
// within the rounding of one f16 ulp. Runs on the emulated module here and on a GPU
// (*OnCudaDevice).
#include "kernel_table_fixture.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests

class KernelsOnCudaDevice : public KernelTableFixture {};

TEST_F(KernelsOnCudaDevice, ToHalfRoundsToNearestEvenAsTheEngine) {
    std::vector<float> x = random_values(1000, 1, 3.0F);
    x.insert(x.end(), {0.0F, -0.0F, 65504.0F, 65520.0F, 1e-8F, 6e-5F, 1.0009765625F + 1e-9F});
    uint16_t* y = device<uint16_t>(x.size());
    k_->to_half(device(x), y, static_cast<int64_t>(x.size()));
    const std::vector<uint16_t> got = host(y, x.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], f32_to_f16(x[i])) << x[i];
}

TEST_F(KernelsOnCudaDevice, GeluIsTheErfForm) {
    std::vector<float> x;
    for (int i = -2400; i <= 2400; ++i) x.push_back(static_cast<float>(i) / 400.0F);  // [-6, 6]
    float* y = device<float>(x.size());
    k_->gelu_erf(device(x), y, static_cast<int64_t>(x.size()));
    std::vector<double> want;
    for (float v : x) want.push_back(gelu(v));
    EXPECT_WITHIN(
        compare<float>(host(y, x.size()), want, [](double w) { return 1e-6 + 1e-6 * std::abs(w); }),
        "gelu_erf");
}

// finish_linear: y = epilogue(y + bias) for each epilogue (none, GELU, residual, both).
TEST_F(KernelsOnCudaDevice, FinishLinearAppliesBiasGeluAndResidual) {
    const size_t rows = 7;
    const size_t n = 67;
    const std::vector<float> y0 = random_values(rows * n, 2, 2.0F);
    const std::vector<float> bias = random_values(n, 3);
    const std::vector<float> residual = random_values(rows * n, 4);
    for (const bool use_gelu : {false, true}) {
        for (const bool use_residual : {false, true}) {
            float* y = device(y0);
            k_->finish_linear(y, device(bias), I(rows), I(n), use_gelu,
                              use_residual ? device(residual) : nullptr);
            std::vector<double> want;
            for (size_t i = 0; i < rows * n; ++i) {
                double v = D(y0[i]) + D(bias[i % n]);
                if (use_gelu) v = gelu(v);
                want.push_back(use_residual ? v + D(residual[i]) : v);
            }
            EXPECT_WITHIN(compare<float>(host(y, y0.size()), want,
                                         [](double w) { return 1e-6 + 1e-6 * std::abs(w); }),
                          std::string("finish_linear gelu=") + (use_gelu ? "1" : "0") +
                              " residual=" + (use_residual ? "1" : "0"));
        }
    }
}

// The f16-weight GEMV, rows 1 and 5, k with and without the 16-byte path (k % 8), every epilogue.
TEST_F(KernelsOnCudaDevice, GemvF16MatchesADoubleDotWithEveryEpilogue) {
    const size_t n = 150;
    for (const size_t k : {size_t{264}, size_t{100}}) {
        for (const size_t m : {size_t{1}, size_t{5}}) {
            const std::vector<float> x = random_values(m * k, 5);
            const std::vector<uint16_t> w = to_f16(random_values(n * k, 6, 0.1F));
            const std::vector<float> bias = random_values(n, 7);
            const std::vector<float> residual = random_values(m * n, 8);
            for (const bool use_gelu : {false, true}) {
                for (const bool use_residual : {false, true}) {
                    float* y = device<float>(m * n);
                    k_->gemv_f16(device(x), device(w), device(bias), y, I(m), I(k), I(n), use_gelu,
                                 use_residual ? device(residual) : nullptr);
                    std::vector<double> want;
                    std::vector<double> scale;  // sum |x w|: f32 accumulation's error scale
                    for (size_t r = 0; r < m; ++r) {
                        for (size_t c = 0; c < n; ++c) {
                            double dot = bias[c];
                            double size = std::abs(bias[c]);
                            for (size_t j = 0; j < k; ++j) {
                                const double term = D(x[r * k + j]) * D(f16_to_f32(w[c * k + j]));
                                dot += term;
                                size += std::abs(term);
                            }
                            if (use_gelu) dot = gelu(dot);
                            want.push_back(use_residual ? dot + D(residual[r * n + c]) : dot);
                            scale.push_back(size);
                        }
                    }
                    const std::vector<float> got = host(y, m * n);
                    Comparison c;
                    for (size_t i = 0; i < got.size(); ++i) {
                        const double error = value_difference(got[i], want[i]);
                        c.worst_error = std::max(c.worst_error, error);
                        c.worst_ratio = std::max(c.worst_ratio, error / (1e-6 + 1e-6 * scale[i] +
                                                                         1e-6 * std::abs(want[i])));
                    }
                    EXPECT_WITHIN(c, "gemv_f16 k=" + std::to_string(k) + " m=" + std::to_string(m) +
                                         " gelu=" + std::to_string(use_gelu) +
                                         " residual=" + std::to_string(use_residual));
                }
            }
        }
    }
}

TEST_F(KernelsOnCudaDevice, AddAndAddBiasBroadcast) {
    const std::vector<float> a = random_values(300, 9);
    const std::vector<float> b = random_values(30, 10);
    float* y = device<float>(a.size());
    k_->add(device(a), device(b), y, 300, 30);
    const std::vector<float> sum = host(y, a.size());
    float* z = device(a);
    k_->add_bias(z, device(b), 10, 30);
    const std::vector<float> biased = host(z, a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(sum[i], a[i] + b[i % 30]);
        ASSERT_EQ(biased[i], a[i] + b[i % 30]);
    }
}

TEST_F(KernelsOnCudaDevice, LayerNormAndRmsNormMatchDoubleStatistics) {
    const size_t rows = 5;
    const size_t d = 384;
    std::vector<float> x = random_values(rows * d, 11, 3.0F);
    for (size_t j = 0; j < d; ++j) x[j] += 40.0F;  // a row far from zero mean
    const std::vector<float> w = random_values(d, 12);
    const std::vector<float> b = random_values(d, 13);
    const float eps = 1e-5F;
    float* y = device<float>(x.size());
    float* z = device<float>(x.size());
    float* xd = device(x);
    k_->layer_norm(xd, device(w), device(b), y, I(rows), I(d), eps);
    k_->rms_norm(xd, device(w), z, I(rows), I(d), eps);
    std::vector<double> want_layer;
    std::vector<double> want_rms;
    for (size_t r = 0; r < rows; ++r) {
        double mean = 0.0;
        double squares = 0.0;
        for (size_t j = 0; j < d; ++j) {
            mean += D(x[r * d + j]);
            squares += D(x[r * d + j]) * D(x[r * d + j]);
        }
        mean /= static_cast<double>(d);
        double variance = 0.0;
        for (size_t j = 0; j < d; ++j) variance += std::pow(D(x[r * d + j]) - mean, 2);
        variance /= static_cast<double>(d);
        const double rms = std::sqrt(squares / static_cast<double>(d) + D(eps));
        for (size_t j = 0; j < d; ++j) {
            want_layer.push_back((D(x[r * d + j]) - mean) / std::sqrt(variance + D(eps)) * D(w[j]) +
                                 D(b[j]));
            want_rms.push_back(D(x[r * d + j]) / rms * D(w[j]));
        }
    }
    const auto tolerance = [](double want) { return 1e-5 + 1e-5 * std::abs(want); };
    EXPECT_WITHIN(compare<float>(host(y, x.size()), want_layer, tolerance), "layer_norm");
    EXPECT_WITHIN(compare<float>(host(z, x.size()), want_rms, tolerance), "rms_norm");
}

// Masked softmax to f16, a fully masked row giving zeros.
TEST_F(KernelsOnCudaDevice, SoftmaxRowsHalfMasksAndRoundsOnce) {
    const size_t q_len = 6;
    const size_t k_len = 300;
    const size_t rows = 2 * q_len;
    const std::vector<float> scores = random_values(rows * k_len, 14, 4.0F);
    std::vector<uint8_t> mask(q_len * k_len);
    for (size_t i = 0; i < q_len; ++i) {
        for (size_t j = 0; j < k_len; ++j) mask[i * k_len + j] = i != 2 && (j <= 50 * i) ? 1 : 0;
    }
    uint16_t* probs = device<uint16_t>(rows * k_len);
    k_->softmax_rows_half(device(scores), device(mask), probs, I(rows), I(q_len), I(k_len));
    std::vector<double> want;
    for (size_t r = 0; r < rows; ++r) {
        const uint8_t* visible = mask.data() + (r % q_len) * k_len;
        double top = -INFINITY;
        for (size_t j = 0; j < k_len; ++j) {
            if (visible[j] != 0) top = std::max(top, static_cast<double>(scores[r * k_len + j]));
        }
        double sum = 0.0;
        for (size_t j = 0; j < k_len; ++j) {
            if (visible[j] != 0) sum += std::exp(D(scores[r * k_len + j]) - top);
        }
        for (size_t j = 0; j < k_len; ++j) {
            want.push_back(visible[j] != 0 ? std::exp(D(scores[r * k_len + j]) - top) / sum : 0.0);
        }
    }
    EXPECT_WITHIN(compare<float>(host_f16(probs, rows * k_len), want, f16_tolerance),
                  "softmax_rows_half");
}

TEST_F(KernelsOnCudaDevice, AttendOneQueryOverF32AndF16KeysAndValues) {
    const size_t bh = 3;
    const size_t k_len = 50;
    const size_t dh = 24;
    const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
    const std::vector<float> q = random_values(bh * dh, 15);
    const std::vector<float> k = random_values(bh * k_len * dh, 16);
    const std::vector<float> v = random_values(bh * k_len * dh, 17);
    std::vector<uint8_t> mask(k_len, 1);
    for (size_t j = 40; j < k_len; ++j) mask[j] = 0;
    const auto tolerance = [](double want) { return 1e-5 + 1e-5 * std::abs(want); };
    for (const bool masked : {false, true}) {
        const uint8_t* m = masked ? mask.data() : nullptr;
        float* y = device<float>(bh * dh);
        ASSERT_TRUE(k_->attend_one_query_f32(device(q), device(k), device(v),
                                             masked ? device(mask) : nullptr, y, I(bh), I(k_len),
                                             I(dh), scale));
        EXPECT_WITHIN(
            compare<float>(host(y, bh * dh),
                           attend_reference(q, widen(k), widen(v), m, bh, 1, k_len, dh, scale),
                           tolerance),
            std::string("attend_one_query f32 masked=") + (masked ? "1" : "0"));
        const std::vector<uint16_t> k16 = to_f16(k);
        const std::vector<uint16_t> v16 = to_f16(v);
        float* z = device<float>(bh * dh);
        ASSERT_TRUE(k_->attend_one_query_f16(device(q), device(k16), device(v16),
                                             masked ? device(mask) : nullptr, z, I(bh), I(k_len),
                                             I(dh), scale));
        EXPECT_WITHIN(compare<float>(host(z, bh * dh),
                                     attend_reference(q, widen_f16(k16), widen_f16(v16), m, bh, 1,
                                                      k_len, dh, scale),
                                     tolerance),
                      std::string("attend_one_query f16 masked=") + (masked ? "1" : "0"));
    }
}

TEST_F(KernelsOnCudaDevice, AttentionProbabilitiesOfOneHeadOverF32AndF16Keys) {
    const size_t batch = 2;
    const size_t heads = 3;
    const size_t head = 1;
    const size_t q_len = 4;
    const size_t k_len = 37;
    const size_t dh = 16;
    const float scale = 0.25F;
    const std::vector<float> q = random_values(batch * heads * q_len * dh, 18);
    const std::vector<float> k = random_values(batch * heads * k_len * dh, 19);
    const std::vector<uint16_t> k16 = to_f16(k);
    const size_t stride = q_len * k_len + 5;  // rows of p apart by more than a head's block
    for (const bool half_keys : {false, true}) {
        float* p = device<float>(batch * stride);
        if (half_keys) {
            k_->attention_probabilities_f16(device(q), device(k16), p, I(batch), I(heads), I(head),
                                            I(q_len), I(k_len), I(dh), scale, I(stride));
        } else {
            k_->attention_probabilities_f32(device(q), device(k), p, I(batch), I(heads), I(head),
                                            I(q_len), I(k_len), I(dh), scale, I(stride));
        }
        const std::vector<float> all = host(p, batch * stride);
        std::vector<float> got;
        std::vector<double> want;
        for (size_t b = 0; b < batch; ++b) {
            for (size_t i = 0; i < q_len; ++i) {
                const size_t bh = b * heads + head;
                std::vector<double> s(k_len);
                double top = -INFINITY;
                for (size_t j = 0; j < k_len; ++j) {
                    double dot = 0.0;
                    for (size_t d = 0; d < dh; ++d) {
                        const double key = half_keys ? f16_to_f32(k16[(bh * k_len + j) * dh + d])
                                                     : k[(bh * k_len + j) * dh + d];
                        dot += static_cast<double>(q[(bh * q_len + i) * dh + d]) * key;
                    }
                    s[j] = dot * D(scale);
                    top = std::max(top, s[j]);
                }
                double sum = 0.0;
                for (double& e : s) sum += (e = std::exp(e - top));
                for (size_t j = 0; j < k_len; ++j) {
                    want.push_back(s[j] / sum);
                    got.push_back(all[b * stride + i * k_len + j]);
                }
            }
        }
        EXPECT_WITHIN(compare<float>(got, want, [](double w) { return 1e-6 + 1e-5 * w; }),
                      std::string("attention_probabilities f16 keys=") + (half_keys ? "1" : "0"));
    }
}

// Flash attention at head sizes 32 and 64 over partial query and key tiles, with and without a
// causal mask. Its probabilities are rounded to f16 before the product with V (as the cuBLAS
// path rounds them): within 2^-11 max|v| of the double result.
TEST_F(KernelsOnCudaDevice, FlashAttentionMatchesDoubleAttention) {
    const size_t bh = 2;
    const size_t q_len = 70;
    const size_t k_len = 45;
    for (const size_t dh : {size_t{32}, size_t{64}}) {
        ASSERT_TRUE(k_->flash_attention_fits(I(dh)));
        const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
        const std::vector<uint16_t> q = to_f16(random_values(bh * q_len * dh, 20));
        const std::vector<uint16_t> k = to_f16(random_values(bh * k_len * dh, 21));
        const std::vector<uint16_t> v = to_f16(random_values(bh * k_len * dh, 22));
        std::vector<uint8_t> mask(q_len * k_len);
        for (size_t i = 0; i < q_len; ++i) {
            for (size_t j = 0; j < k_len; ++j) mask[i * k_len + j] = j <= i ? 1 : 0;
        }
        double v_max = 0.0;
        for (uint16_t bits : v) v_max = std::max(v_max, std::abs(double{f16_to_f32(bits)}));
        std::vector<float> qf;
        for (uint16_t bits : q) qf.push_back(f16_to_f32(bits));
        for (const bool masked : {false, true}) {
            float* y = device<float>(bh * q_len * dh);
            k_->flash_attention(device(q), device(k), device(v), masked ? device(mask) : nullptr, y,
                                I(bh), I(q_len), I(k_len), I(dh), scale);
            EXPECT_WITHIN(
                compare<float>(
                    host(y, bh * q_len * dh),
                    attend_reference(qf, widen_f16(k), widen_f16(v), masked ? mask.data() : nullptr,
                                     bh, q_len, k_len, dh, scale),
                    [&](double) { return 0x1p-11 * v_max + 1e-5; }),
                "flash_attention dh=" + std::to_string(dh) + " masked=" + std::to_string(masked));
        }
    }
}

// The cache writes: value rows into a state at a start position (given or read on the device),
// f32 and f16 (rounded to nearest even); everything outside the span is left as it was.
TEST_F(KernelsOnCudaDevice, WriteSpanWritesOnlyItsPositionsInF32AndF16) {
    const size_t outer = 3;
    const size_t state_len = 10;
    const size_t value_len = 2;
    const size_t inner = 8;
    const std::vector<float> value = random_values(outer * value_len * inner, 23);
    const std::vector<float> before = random_values(outer * state_len * inner, 24);
    const std::vector<int32_t> start_device = {6};
    for (const bool from_device : {false, true}) {
        const size_t start = from_device ? 6 : 3;
        float* state = device(before);
        uint16_t* state16 = device(to_f16(before));
        const int32_t* start_pointer = from_device ? device(start_device) : nullptr;
        k_->write_span_f32(state, device(value), I(outer), I(state_len), I(value_len), I(inner),
                           from_device ? 0 : I(start), start_pointer);
        k_->write_span_f16(state16, device(value), I(outer), I(state_len), I(value_len), I(inner),
                           from_device ? 0 : I(start), start_pointer);
        const std::vector<float> got = host(state, before.size());
        const std::vector<uint16_t> got16 = host(state16, before.size());
        for (size_t o = 0; o < outer; ++o) {
            for (size_t t = 0; t < state_len; ++t) {
                for (size_t c = 0; c < inner; ++c) {
                    const size_t at = (o * state_len + t) * inner + c;
                    const bool written = t >= start && t < start + value_len;
                    const float want =
                        written ? value[(o * value_len + t - start) * inner + c] : before[at];
                    ASSERT_EQ(got[at], want) << o << " " << t << " " << c;
                    ASSERT_EQ(got16[at], f32_to_f16(want)) << o << " " << t << " " << c;
                }
            }
        }
    }
}

TEST_F(KernelsOnCudaDevice, LayoutOpsMoveEveryElementWhereTheirShapesSay) {
    const size_t batch = 2;
    const size_t n = 5;
    const size_t heads = 3;
    const size_t dh = 4;
    const std::vector<float> x = random_values(batch * n * heads * dh, 25);
    float* by_head = device<float>(x.size());
    float* back = device<float>(x.size());
    k_->split_heads(device(x), by_head, I(batch), I(n), I(heads), I(dh));
    k_->merge_heads(by_head, back, I(batch), I(heads), I(n), I(dh));
    const std::vector<float> split = host(by_head, x.size());
    EXPECT_EQ(host(back, x.size()), x);
    for (size_t b = 0; b < batch; ++b) {
        for (size_t h = 0; h < heads; ++h) {
            for (size_t t = 0; t < n; ++t) {
                for (size_t d = 0; d < dh; ++d) {
                    ASSERT_EQ(split[((b * heads + h) * n + t) * dh + d],
                              x[((b * n + t) * heads + h) * dh + d]);
                }
            }
        }
    }

    const size_t width = 6;
    const std::vector<float> table = random_values(20 * width, 26);
    float* slice = device<float>(3 * width);
    k_->slice_rows(device(table), slice, I(width), 3, 4, nullptr);
    EXPECT_EQ(host(slice, 3 * width),
              std::vector<float>(table.begin() + 4 * width, table.begin() + 7 * width));
    k_->slice_rows(device(table), slice, I(width), 3, 0, device(std::vector<int32_t>{11}));
    EXPECT_EQ(host(slice, 3 * width),
              std::vector<float>(table.begin() + 11 * width, table.begin() + 14 * width));

    float* taken = device<float>(4 * width);
    k_->take(device(table), taken, 4, 5, I(width), 2);  // [4, 5, 6] at middle index 2
    const std::vector<float> got_take = host(taken, 4 * width);
    for (size_t o = 0; o < 4; ++o) {
        for (size_t c = 0; c < width; ++c) {
            ASSERT_EQ(got_take[o * width + c], table[(o * 5 + 2) * width + c]);
        }
    }

    const std::vector<uint16_t> embeddings = to_f16(random_values(10 * width, 27));
    const std::vector<int32_t> ids = {3, 0, 9, 3};
    float* gathered = device<float>(ids.size() * width);
    k_->embedding(device(ids), device(embeddings), gathered, 4, I(width));
    const std::vector<float> got_rows = host(gathered, ids.size() * width);
    for (size_t i = 0; i < ids.size(); ++i) {
        for (size_t c = 0; c < width; ++c) {
            ASSERT_EQ(got_rows[i * width + c],
                      f16_to_f32(embeddings[static_cast<size_t>(ids[i]) * width + c]));
        }
    }
}

// x [2, 3, 4] -> y [4, 2, 3] (y[c, a, b] = x[a, b, c]), 4-byte elements moved bit for bit.
TEST_F(KernelsOnCudaDevice, PermuteMovesFourByteElementsByStrides) {
    std::vector<uint32_t> x(24);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0x7FC00000U + static_cast<uint32_t>(i);  // NaNs
    const int64_t out_shape[3] = {4, 2, 3};
    const int64_t src_strides[3] = {1, 12, 4};
    uint32_t* y = device<uint32_t>(x.size());
    k_->permute(device(x), y, 24, 3, out_shape, src_strides);
    const std::vector<uint32_t> got = host(y, x.size());
    for (size_t c = 0; c < 4; ++c) {
        for (size_t a = 0; a < 2; ++a) {
            for (size_t b = 0; b < 3; ++b)
                ASSERT_EQ(got[(c * 2 + a) * 3 + b], x[a * 12 + b * 4 + c]);
        }
    }
}

TEST_F(KernelsOnCudaDevice, Im2colHalfPadsWithZerosAndRoundsToHalf) {
    const size_t batch = 2;
    const size_t length = 9;
    const size_t cin = 3;
    const size_t kernel = 3;
    const size_t stride = 2;
    const size_t padding = 1;
    const size_t out_length = (length + 2 * padding - kernel) / stride + 1;
    const std::vector<float> x = random_values(batch * length * cin, 28);
    uint16_t* cols = device<uint16_t>(batch * out_length * cin * kernel);
    k_->im2col_half(device(x), cols, I(batch), I(length), I(cin), I(kernel), I(stride), I(padding),
                    I(out_length));
    const std::vector<uint16_t> got = host(cols, batch * out_length * cin * kernel);
    for (size_t b = 0; b < batch; ++b) {
        for (size_t t = 0; t < out_length; ++t) {
            for (size_t c = 0; c < cin; ++c) {
                for (size_t j = 0; j < kernel; ++j) {
                    const size_t padded = t * stride + j;  // the input position + padding
                    const bool inside = padded >= padding && padded - padding < length;
                    const float want = inside ? x[(b * length + padded - padding) * cin + c] : 0.0F;
                    ASSERT_EQ(got[((b * out_length + t) * cin + c) * kernel + j], f32_to_f16(want));
                }
            }
        }
    }
}

TEST_F(KernelsOnCudaDevice, MaskAndIndexOps) {
    const size_t size = 7;
    uint8_t* mask = device<uint8_t>(size * size);
    k_->causal_mask(mask, I(size));
    const std::vector<uint8_t> got_mask = host(mask, size * size);
    for (size_t i = 0; i < size; ++i) {
        for (size_t j = 0; j < size; ++j) ASSERT_EQ(got_mask[i * size + j], j <= i ? 1 : 0);
    }
    int32_t* positions = device<int32_t>(300);
    k_->iota(positions, 300);
    uint8_t* visible = device<uint8_t>(300);
    k_->less_equal(positions, device(std::vector<int32_t>{123}), visible, 300);
    const std::vector<int32_t> got_iota = host(positions, 300);
    const std::vector<uint8_t> got_visible = host(visible, 300);
    for (int32_t i = 0; i < 300; ++i) {
        ASSERT_EQ(got_iota[static_cast<size_t>(i)], i);
        ASSERT_EQ(got_visible[static_cast<size_t>(i)], i <= 123 ? 1 : 0);
    }
}

}  // namespace
