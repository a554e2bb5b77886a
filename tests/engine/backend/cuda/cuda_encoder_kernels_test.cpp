// The fused encoder layer's kernels one at a time (the module's KernelTable, version 6) against
// double-precision loops: LayerNorm and bias + GELU writing f16 (within one f16 ulp of the double
// result, so the tanh GELU fails), the flash attention over heads read in place from a [B, T, 3 D]
// buffer (partial query and key tiles, two head sizes), and the cuBLASLt GEMM with the bias
// epilogue and the residual as C as the cuBLAS documentation defines them (D = alpha A B +
// beta C, the bias of D's length added to every column). Emulated module here, a GPU there.
#include "kernel_table_fixture.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests

class EncoderKernelsOnCudaDevice : public KernelTableFixture {};

TEST_F(EncoderKernelsOnCudaDevice, LayerNormHalfIsLayerNormRoundedOnce) {
    const size_t rows = 5;
    const size_t d = 320;
    std::vector<float> x = random_values(rows * d, 31, 3.0F);
    for (size_t j = 0; j < d; ++j) x[j] += 40.0F;  // a row far from zero mean
    const std::vector<float> w = random_values(d, 32);
    const std::vector<float> b = random_values(d, 33);
    const float eps = 1e-5F;
    uint16_t* y = device<uint16_t>(x.size());
    k_->layer_norm_half(device(x), device(w), device(b), y, I(rows), I(d), eps);
    std::vector<double> want;
    for (size_t r = 0; r < rows; ++r) {
        double mean = 0.0;
        for (size_t j = 0; j < d; ++j) mean += D(x[r * d + j]);
        mean /= static_cast<double>(d);
        double variance = 0.0;
        for (size_t j = 0; j < d; ++j) variance += std::pow(D(x[r * d + j]) - mean, 2);
        variance /= static_cast<double>(d);
        for (size_t j = 0; j < d; ++j) {
            want.push_back((D(x[r * d + j]) - mean) / std::sqrt(variance + D(eps)) * D(w[j]) +
                           D(b[j]));
        }
    }
    EXPECT_WITHIN(compare<float>(host_f16(y, x.size()), want,
                                 [](double v) { return f16_tolerance(v) + 1e-5; }),
                  "layer_norm_half");
}

// f16 inputs over [-6, 6] plus an f32 bias, in place (as on fc1's f16 output) and apart: the erf
// GELU rounded to f16 is within one ulp and 1e-6 (f32's 1 + erf(x / sqrt 2) cancels below x = -5,
// as in gelu_erf); the tanh form differs by up to 4.7e-4 where the outputs are near -0.02, dozens
// of ulps.
TEST_F(EncoderKernelsOnCudaDevice, BiasGeluHalfIsTheErfFormRoundedOnce) {
    const size_t rows = 6;
    const size_t n = 400;
    std::vector<float> values;
    for (size_t i = 0; i < rows * n; ++i)
        values.push_back(-6.0F + 12.0F * static_cast<float>(i) / static_cast<float>(rows * n));
    const std::vector<uint16_t> x = to_f16(values);
    const std::vector<float> bias = random_values(n, 34, 0.1F);
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i)
        want.push_back(gelu(D(f16_to_f32(x[i])) + D(bias[i % n])));
    for (const bool in_place : {false, true}) {
        uint16_t* xd = device(x);
        uint16_t* y = in_place ? xd : device<uint16_t>(x.size());
        k_->bias_gelu_half(xd, device(bias), y, I(rows), I(n));
        EXPECT_WITHIN(compare<float>(host_f16(y, x.size()), want,
                                     [](double v) { return f16_tolerance(v) + 1e-6; }),
                      std::string("bias_gelu_half") + (in_place ? " in place" : ""));
    }
}

// softmax(q k^T scale) v per (batch, head), the heads read from qkv [B, T, 3 D] (q, k, v side by
// side) and written merged into y [B, T, D] f16. T = 70: a partial query tile of 6 and a partial
// key tile of 6. Probabilities rounded to f16 before the product with V (as the old kernel):
// within 2^-11 max|v| plus the output's rounding.
TEST_F(EncoderKernelsOnCudaDevice, FlashAttentionStridedReadsHeadsInPlace) {
    const size_t batch = 2;
    const size_t t_len = 70;
    const size_t heads = 3;
    for (const size_t dh : {size_t{32}, size_t{64}}) {
        const size_t d = heads * dh;
        const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
        const std::vector<uint16_t> qkv = to_f16(random_values(batch * t_len * 3 * d, 40));
        // The heads as [B H, T, Dh] for the reference.
        std::vector<float> q;
        std::vector<double> k;
        std::vector<double> v;
        double v_max = 0.0;
        for (size_t b = 0; b < batch; ++b) {
            for (size_t h = 0; h < heads; ++h) {
                for (size_t t = 0; t < t_len; ++t) {
                    for (size_t e = 0; e < dh; ++e) {
                        const size_t at = (b * t_len + t) * 3 * d + h * dh + e;
                        q.push_back(f16_to_f32(qkv[at]));
                        k.push_back(f16_to_f32(qkv[at + d]));
                        v.push_back(f16_to_f32(qkv[at + 2 * d]));
                        v_max = std::max(v_max, std::abs(v.back()));
                    }
                }
            }
        }
        const std::vector<double> heads_out =
            attend_reference(q, k, v, nullptr, batch * heads, t_len, t_len, dh, scale);
        std::vector<double> want(batch * t_len * d);  // merged [B, T, D]
        for (size_t b = 0; b < batch; ++b) {
            for (size_t h = 0; h < heads; ++h) {
                for (size_t t = 0; t < t_len; ++t) {
                    for (size_t e = 0; e < dh; ++e) {
                        want[(b * t_len + t) * d + h * dh + e] =
                            heads_out[((b * heads + h) * t_len + t) * dh + e];
                    }
                }
            }
        }
        uint16_t* y = device<uint16_t>(want.size());
        ASSERT_TRUE(k_->flash_attention_strided(device(qkv), y, I(batch), I(t_len), I(heads), I(dh),
                                                scale));
        EXPECT_WITHIN(
            compare<float>(host_f16(y, want.size()), want,
                           [&](double w) { return 0x1p-11 * v_max + f16_tolerance(w) + 1e-5; }),
            "flash_attention_strided dh=" + std::to_string(dh));
    }
    // Heads it cannot take, refused without a launch: 8 (not a multiple of 16), 80 (over 64).
    uint16_t* y = device<uint16_t>(16);
    EXPECT_FALSE(k_->flash_attention_strided(y, y, 1, 1, 1, 8, 1.0F));
    EXPECT_FALSE(k_->flash_attention_strided(y, y, 1, 1, 1, 80, 1.0F));
}

// y [m, n] = x [m, k] w^T + bias + residual through cuBLASLt: f32 out with its bias and a residual
// (apart, and in place as C = D), f16 out with an f16 bias, and no epilogue at all.
TEST_F(EncoderKernelsOnCudaDevice, LtGemmAddsTheBiasToEveryRowAndTheResidualAsC) {
    const size_t m = 37;
    const size_t kk = 48;
    const size_t n = 40;
    const std::vector<uint16_t> x = to_f16(random_values(m * kk, 50));
    const std::vector<uint16_t> w = to_f16(random_values(n * kk, 51));
    const std::vector<float> bias = random_values(n, 52);
    const std::vector<float> residual = random_values(m * n, 53, 2.0F);
    std::vector<double> product(m * n);
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (size_t p = 0; p < kk; ++p)
                sum += D(f16_to_f32(x[i * kk + p])) * D(f16_to_f32(w[j * kk + p]));
            product[i * n + j] = sum;
        }
    }
    const auto f32_tolerance = [](double want) { return 1e-5 + 1e-5 * std::abs(want); };
    uint16_t* xd = device(x);
    uint16_t* wd = device(w);
    for (const bool in_place : {false, true}) {
        float* y = in_place ? device(residual) : device<float>(m * n);
        k_->lt_gemm(xd, wd, device(bias), in_place ? y : device(residual), y, false, I(m), I(kk),
                    I(n));
        std::vector<double> want(m * n);
        for (size_t i = 0; i < m * n; ++i) want[i] = product[i] + D(bias[i % n]) + D(residual[i]);
        EXPECT_WITHIN(compare<float>(host(y, m * n), want, f32_tolerance),
                      std::string("lt_gemm bias + residual") + (in_place ? " in place" : ""));
    }
    const std::vector<uint16_t> bias16 = to_f16(bias);
    uint16_t* y16 = device<uint16_t>(m * n);
    k_->lt_gemm(xd, wd, device(bias16), nullptr, y16, true, I(m), I(kk), I(n));
    std::vector<double> want16(m * n);
    for (size_t i = 0; i < m * n; ++i) want16[i] = product[i] + D(f16_to_f32(bias16[i % n]));
    EXPECT_WITHIN(compare<float>(host_f16(y16, m * n), want16,
                                 [](double v) { return f16_tolerance(v) + 1e-5; }),
                  "lt_gemm f16 out, f16 bias");
    float* plain = device<float>(m * n);
    k_->lt_gemm(xd, wd, nullptr, nullptr, plain, false, I(m), I(kk), I(n));
    EXPECT_WITHIN(compare<float>(host(plain, m * n), product, f32_tolerance), "lt_gemm plain");
}

}  // namespace
