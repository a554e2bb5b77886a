// A decoder step's new CUDA kernels alone, against double-precision loops and against the kernels
// they replace (which EARSHOT_CUDA_OLD_KERNELS brings back): the multi-column GEMV with every
// epilogue, and the one-query attention split over the keys, for key counts on and off its
// 64-key spans, masks that end anywhere (a step at pos), f16 caches and f32 keys. Runs on the
// emulated module here and on a GPU (*OnCudaDevice).
#include "kernel_table_fixture.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests

class StepKernelsOnCudaDevice : public KernelTableFixture {
protected:
    // y [m, n] of the multi-column GEMV (or the old one) on the given inputs.
    std::vector<float> gemv(bool columns, const std::vector<float>& x,
                            const std::vector<uint16_t>& w, const std::vector<float>& bias,
                            const std::vector<float>* residual, bool use_gelu, size_t m, size_t k,
                            size_t n) {
        float* y = device<float>(m * n);
        auto* launch = columns ? k_->gemv_f16_columns : k_->gemv_f16;
        launch(device(x), device(w), bias.empty() ? nullptr : device(bias), y, I(m), I(k), I(n),
               use_gelu, residual != nullptr ? device(*residual) : nullptr);
        return host(y, m * n);
    }

    // The split-key attention over f16 caches (or f32 keys), its partials left uninitialised and
    // its counts zero; the counts are zero again after it.
    std::vector<float> split(const std::vector<float>& q, const std::vector<float>& k,
                             const std::vector<float>& v, const std::vector<uint8_t>* mask,
                             bool half, size_t bh, size_t k_len, size_t dh, float scale) {
        float* y = device<float>(bh * dh);
        float* partials = device<float>(
            static_cast<size_t>(k_->split_keys_scratch_floats(I(bh), I(k_len), I(dh))));
        const uint8_t* m = mask != nullptr ? device(*mask) : nullptr;
        unsigned* done = device(std::vector<unsigned>(bh, 0U));
        const bool launched =
            half ? k_->attend_split_keys_f16(device(q), device(to_f16(k)), device(to_f16(v)), m, y,
                                             partials, done, I(bh), I(k_len), I(dh), scale)
                 : k_->attend_split_keys_f32(device(q), device(k), device(v), m, y, partials, done,
                                             I(bh), I(k_len), I(dh), scale);
        EXPECT_TRUE(launched);
        EXPECT_EQ(host(done, bh), std::vector<unsigned>(bh, 0U)) << "counts left behind";
        return host(y, bh * dh);
    }
};

// x w^T + bias, its epilogue, and sum |x w| (the scale of f32 accumulation's error) per output.
struct GemvReference {
    std::vector<double> want;
    std::vector<double> scale;
};

GemvReference gemv_reference(const std::vector<float>& x, const std::vector<uint16_t>& w,
                             const std::vector<float>& bias, const std::vector<float>* residual,
                             bool use_gelu, size_t m, size_t k, size_t n) {
    GemvReference r;
    for (size_t row = 0; row < m; ++row) {
        for (size_t c = 0; c < n; ++c) {
            double dot = bias.empty() ? 0.0 : D(bias[c]);
            double size = std::abs(dot);
            for (size_t j = 0; j < k; ++j) {
                const double term = D(x[row * k + j]) * D(f16_to_f32(w[c * k + j]));
                dot += term;
                size += std::abs(term);
            }
            if (use_gelu) dot = gelu(dot);
            r.want.push_back(residual != nullptr ? dot + D((*residual)[row * n + c]) : dot);
            r.scale.push_back(size);
        }
    }
    return r;
}

Comparison compare_scaled(const std::vector<float>& got, const std::vector<double>& want,
                          const std::vector<double>& scale) {
    Comparison c;
    if (got.size() != want.size()) return {INFINITY, INFINITY};
    for (size_t i = 0; i < got.size(); ++i) {
        const double error = value_difference(got[i], want[i]);
        c.worst_error = std::max(c.worst_error, error);
        c.worst_ratio =
            std::max(c.worst_ratio, error / (1e-6 + 1e-6 * scale[i] + 1e-6 * std::abs(want[i])));
    }
    return c;
}

// k: 1032 runs the two-chunk loop and a one-chunk tail, 264 only a short tail, 100 falls back to
// the old kernel (rows of 200 bytes); n = 150 leaves a warp with one real column.
TEST_F(StepKernelsOnCudaDevice, GemvColumnsMatchesADoubleDotWithEveryEpilogue) {
    const size_t n = 150;
    for (const size_t k : {size_t{1032}, size_t{264}, size_t{100}}) {
        for (const size_t m : {size_t{1}, size_t{5}, size_t{8}}) {
            const std::vector<float> x = random_values(m * k, 5);
            const std::vector<uint16_t> w = to_f16(random_values(n * k, 6, 0.1F));
            const std::vector<float> bias = random_values(n, 7);
            const std::vector<float> residual = random_values(m * n, 8);
            for (const bool use_gelu : {false, true}) {
                for (const bool use_residual : {false, true}) {
                    const std::vector<float>* r = use_residual ? &residual : nullptr;
                    const GemvReference want = gemv_reference(x, w, bias, r, use_gelu, m, k, n);
                    EXPECT_WITHIN(compare_scaled(gemv(true, x, w, bias, r, use_gelu, m, k, n),
                                                 want.want, want.scale),
                                  "gemv_f16_columns k=" + std::to_string(k) + " m=" +
                                      std::to_string(m) + " gelu=" + std::to_string(use_gelu) +
                                      " residual=" + std::to_string(use_residual));
                }
            }
        }
    }
}

// n = 8451: four columns per warp (n >= 4 x 132 x 16 warps), the last warp with three; no bias.
TEST_F(StepKernelsOnCudaDevice, GemvColumnsTakesFourColumnsPerWarpForWideLayers) {
    const size_t n = 8451;
    const size_t k = 264;
    for (const size_t m : {size_t{1}, size_t{2}}) {
        const std::vector<float> x = random_values(m * k, 9);
        const std::vector<uint16_t> w = to_f16(random_values(n * k, 10, 0.1F));
        const GemvReference want = gemv_reference(x, w, {}, nullptr, false, m, k, n);
        EXPECT_WITHIN(
            compare_scaled(gemv(true, x, w, {}, nullptr, false, m, k, n), want.want, want.scale),
            "gemv_f16_columns n=8451 m=" + std::to_string(m));
    }
}

// The new GEMV and the old one on the same inputs: both accumulate in f32, in different orders,
// so they agree within f32 accumulation's error of sum |x w|.
TEST_F(StepKernelsOnCudaDevice, GemvColumnsAgreesWithTheOldGemv) {
    const size_t n = 200;
    const size_t k = 1288;
    for (const size_t m : {size_t{1}, size_t{5}}) {
        const std::vector<float> x = random_values(m * k, 11);
        const std::vector<uint16_t> w = to_f16(random_values(n * k, 12, 0.1F));
        const std::vector<float> bias = random_values(n, 13);
        const std::vector<float> residual = random_values(m * n, 14);
        const std::vector<float> old_y = gemv(false, x, w, bias, &residual, true, m, k, n);
        const std::vector<float> new_y = gemv(true, x, w, bias, &residual, true, m, k, n);
        const GemvReference scale = gemv_reference(x, w, bias, &residual, true, m, k, n);
        EXPECT_WITHIN(compare_scaled(new_y, {old_y.begin(), old_y.end()}, scale.scale),
                      "gemv_f16_columns against gemv_f16, m=" + std::to_string(m));
    }
}

const auto kAttendTolerance = [](double want) { return 1e-5 + 1e-5 * std::abs(want); };

// A decoder step's mask at position pos: keys 0 .. pos visible ([K], iota <= pos).
std::vector<uint8_t> step_mask(size_t k_len, size_t pos) {
    std::vector<uint8_t> mask(k_len);
    for (size_t j = 0; j < k_len; ++j) mask[j] = j <= pos ? 1 : 0;
    return mask;
}

// Key counts below, at and past one 64-key span, Whisper's 448 decoder positions and 1500 audio
// frames; no mask (cross-attention) and a step's mask ending inside, at the end of and right after
// a span; f16 caches with head size 64 (16-byte loads).
TEST_F(StepKernelsOnCudaDevice, AttendSplitKeysMatchesDoubleAttentionForEveryKeyCount) {
    const size_t bh = 2;
    const size_t dh = 64;
    const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
    for (const size_t k_len : std::vector<size_t>{1, 63, 64, 65, 300, 448, 1500}) {
        const std::vector<float> q = random_values(bh * dh, 20);
        const std::vector<float> k = random_values(bh * k_len * dh, 21);
        const std::vector<float> v = random_values(bh * k_len * dh, 22);
        const std::vector<double> k16 = widen_f16(to_f16(k));
        const std::vector<double> v16 = widen_f16(to_f16(v));
        const std::string shape = " K=" + std::to_string(k_len);
        EXPECT_WITHIN(
            compare<float>(split(q, k, v, nullptr, true, bh, k_len, dh, scale),
                           attend_reference(q, k16, v16, nullptr, bh, 1, k_len, dh, scale),
                           kAttendTolerance),
            "attend_split_keys f16 unmasked" + shape);
        for (const size_t pos : {size_t{0}, size_t{62}, size_t{63}, size_t{64}, k_len - 1}) {
            if (pos >= k_len) continue;
            const std::vector<uint8_t> mask = step_mask(k_len, pos);
            EXPECT_WITHIN(
                compare<float>(split(q, k, v, &mask, true, bh, k_len, dh, scale),
                               attend_reference(q, k16, v16, mask.data(), bh, 1, k_len, dh, scale),
                               kAttendTolerance),
                "attend_split_keys f16" + shape + " pos=" + std::to_string(pos));
        }
    }
}

// Head sizes off the 16-byte path (20, 130: element by element) and past one 64-wide pass (72,
// 130, 256), f32 keys and values as well as f16, with a mask that hides keys in the middle.
TEST_F(StepKernelsOnCudaDevice, AttendSplitKeysTakesEveryHeadSizeAndF32Keys) {
    const size_t bh = 3;
    const size_t k_len = 130;
    std::vector<uint8_t> mask(k_len, 1);
    for (size_t j = 10; j < 75; ++j) mask[j] = 0;
    for (const size_t dh : {size_t{20}, size_t{64}, size_t{72}, size_t{130}, size_t{256}}) {
        const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
        const std::vector<float> q = random_values(bh * dh, 23);
        const std::vector<float> k = random_values(bh * k_len * dh, 24);
        const std::vector<float> v = random_values(bh * k_len * dh, 25);
        const std::string shape = " Dh=" + std::to_string(dh);
        EXPECT_WITHIN(compare<float>(split(q, k, v, &mask, false, bh, k_len, dh, scale),
                                     attend_reference(q, widen(k), widen(v), mask.data(), bh, 1,
                                                      k_len, dh, scale),
                                     kAttendTolerance),
                      "attend_split_keys f32" + shape);
        EXPECT_WITHIN(compare<float>(split(q, k, v, &mask, true, bh, k_len, dh, scale),
                                     attend_reference(q, widen_f16(to_f16(k)), widen_f16(to_f16(v)),
                                                      mask.data(), bh, 1, k_len, dh, scale),
                                     kAttendTolerance),
                      "attend_split_keys f16" + shape);
    }
}

// Keys past pos are never read: the cache holds NaN there (as a cache never written, on the
// emulator), and the output is still the attention over keys 0 .. pos. A fully masked row is
// zeros.
TEST_F(StepKernelsOnCudaDevice, AttendSplitKeysReadsNoKeyPastTheStepsPosition) {
    const size_t bh = 2;
    const size_t k_len = 448;
    const size_t dh = 64;
    const size_t pos = 70;
    const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
    const std::vector<float> q = random_values(bh * dh, 26);
    std::vector<float> k = random_values(bh * k_len * dh, 27);
    std::vector<float> v = random_values(bh * k_len * dh, 28);
    const std::vector<double> want =
        attend_reference(q, widen_f16(to_f16(k)), widen_f16(to_f16(v)),
                         step_mask(k_len, pos).data(), bh, 1, k_len, dh, scale);
    for (size_t h = 0; h < bh; ++h) {
        for (size_t j = pos + 1; j < k_len; ++j) {
            for (size_t d = 0; d < dh; ++d) {
                k[(h * k_len + j) * dh + d] = NAN;
                v[(h * k_len + j) * dh + d] = NAN;
            }
        }
    }
    const std::vector<uint8_t> mask = step_mask(k_len, pos);
    EXPECT_WITHIN(
        compare<float>(split(q, k, v, &mask, true, bh, k_len, dh, scale), want, kAttendTolerance),
        "attend_split_keys with NaN past pos");
    const std::vector<uint8_t> hidden(k_len, 0);
    for (const float y : split(q, k, v, &hidden, true, bh, k_len, dh, scale)) EXPECT_EQ(y, 0.0F);
}

// The split kernel and the one-block-per-head kernel it replaces, on the same f16 caches and
// masks: the same attention within f32 rounding.
TEST_F(StepKernelsOnCudaDevice, AttendSplitKeysAgreesWithTheOldKernel) {
    const size_t bh = 4;
    const size_t dh = 64;
    const float scale = 1.0F / std::sqrt(static_cast<float>(dh));
    for (const size_t k_len : {size_t{65}, size_t{448}, size_t{1500}}) {
        const std::vector<float> q = random_values(bh * dh, 29);
        const std::vector<float> k = random_values(bh * k_len * dh, 30);
        const std::vector<float> v = random_values(bh * k_len * dh, 31);
        const std::vector<uint8_t> mask = step_mask(k_len, k_len / 2);
        for (const bool masked : {false, true}) {
            const std::vector<uint8_t>* m = masked ? &mask : nullptr;
            float* old_y = device<float>(bh * dh);
            ASSERT_TRUE(k_->attend_one_query_f16(device(q), device(to_f16(k)), device(to_f16(v)),
                                                 masked ? device(mask) : nullptr, old_y, I(bh),
                                                 I(k_len), I(dh), scale));
            const std::vector<float> old_values = host(old_y, bh * dh);
            EXPECT_WITHIN(compare<float>(split(q, k, v, m, true, bh, k_len, dh, scale),
                                         std::vector<double>(old_values.begin(), old_values.end()),
                                         kAttendTolerance),
                          "attend_split_keys against attend_one_query K=" + std::to_string(k_len) +
                              " masked=" + std::to_string(masked));
        }
    }
}

}  // namespace
