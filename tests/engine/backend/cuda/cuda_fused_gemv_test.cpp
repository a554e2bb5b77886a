// The fused GEMV alone (backend/cuda/fused_gemv.h): a LayerNorm and up to three linears of its
// output in one launch, against double-precision loops, against the separate LayerNorm and
// multi-column GEMV it replaces (bit for bit), with f16 columns written into a cache at a
// position read from device memory and nothing else of the cache touched. Runs on the emulated
// module here and on a GPU (*OnCudaDevice).
#include "backend/cuda/cuda_launch_rules.h"
#include "kernel_table_fixture.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests
using earshot::backend::cuda::FusedGemv;
using earshot::backend::cuda::FusedLinear;

constexpr float kEps = 1e-5F;

// LayerNorm of each row in double from the f32 inputs.
std::vector<double> layer_norm_reference(const std::vector<float>& x, const std::vector<float>& w,
                                         const std::vector<float>& b, size_t m, size_t k) {
    std::vector<double> y(m * k);
    for (size_t r = 0; r < m; ++r) {
        double mean = 0.0;
        for (size_t j = 0; j < k; ++j) mean += D(x[r * k + j]);
        mean /= static_cast<double>(k);
        double variance = 0.0;
        for (size_t j = 0; j < k; ++j)
            variance += (D(x[r * k + j]) - mean) * (D(x[r * k + j]) - mean);
        variance /= static_cast<double>(k);
        const double inv = 1.0 / std::sqrt(variance + D(kEps));
        for (size_t j = 0; j < k; ++j) {
            y[r * k + j] = (D(x[r * k + j]) - mean) * inv * D(w[j]) + D(b[j]);
        }
    }
    return y;
}

// One linear of the fused GEMV on the host: weights, bias, epilogue, and its reference outputs
// with the scale of their accumulation error (sum |x w|).
struct Linear {
    std::vector<uint16_t> w;
    std::vector<float> bias;
    std::vector<float> residual;
    bool gelu = false;
    size_t n = 0;
    std::vector<double> want;
    std::vector<double> scale;
};

Linear make_linear(const std::vector<double>& normed, size_t m, size_t k, size_t n, uint32_t seed,
                   bool bias, bool gelu_epilogue, bool residual) {
    Linear l;
    l.n = n;
    l.gelu = gelu_epilogue;
    l.w = to_f16(random_values(n * k, seed, 0.1F));
    if (bias) l.bias = random_values(n, seed + 1);
    if (residual) l.residual = random_values(m * n, seed + 2);
    for (size_t r = 0; r < m; ++r) {
        for (size_t c = 0; c < n; ++c) {
            double dot = 0.0;
            double size = 0.0;
            for (size_t j = 0; j < k; ++j) {
                const double term = normed[r * k + j] * D(f16_to_f32(l.w[c * k + j]));
                dot += term;
                size += std::abs(term);
            }
            if (bias) dot += D(l.bias[c]);
            if (gelu_epilogue) dot = gelu(dot);
            if (residual) dot += D(l.residual[r * n + c]);
            l.want.push_back(dot);
            l.scale.push_back(size);
        }
    }
    return l;
}

// Within f32 accumulation of the scale, plus f16 rounding when the value went to a cache.
Comparison compare_linear(const std::vector<float>& got, const Linear& l, bool half) {
    Comparison c;
    if (got.size() != l.want.size()) return {INFINITY, INFINITY};
    for (size_t i = 0; i < got.size(); ++i) {
        const double error = value_difference(got[i], l.want[i]);
        const double tolerance = 1e-5 + 1e-5 * l.scale[i] + 1e-6 * std::abs(l.want[i]) +
                                 (half ? f16_tolerance(l.want[i]) : 0.0);
        c.worst_error = std::max(c.worst_error, error);
        c.worst_ratio = std::max(c.worst_ratio, error / tolerance);
    }
    return c;
}

class FusedGemvOnCudaDevice : public KernelTableFixture {
protected:
    FusedLinear upload(const Linear& l) {
        FusedLinear f;
        f.w = device(l.w);
        f.bias = l.bias.empty() ? nullptr : device(l.bias);
        f.residual = l.residual.empty() ? nullptr : device(l.residual);
        f.gelu = l.gelu;
        f.n = I(l.n);
        return f;
    }
};

// q to an f32 output (bias, GELU, residual: every epilogue), k and v into caches [m, H, T, Dh]
// at pos 7 (k without bias, as Whisper's), for rows 1, 5 and 8 and k on and off the two-chunk
// loop. Every other position of the caches keeps its value.
TEST_F(FusedGemvOnCudaDevice, LayerNormThenThreeLinearsMatchDoubleLoops) {
    constexpr size_t kHeads = 4;
    constexpr size_t kDh = 24;
    constexpr size_t kPositions = 10;
    constexpr int32_t kPos = 7;
    constexpr size_t n = kHeads * kDh;
    for (const size_t k : {size_t{1032}, size_t{264}}) {
        for (const size_t m : {size_t{1}, size_t{5}, size_t{8}}) {
            const std::vector<float> x = random_values(m * k, 11, 2.0F);
            const std::vector<float> nw = random_values(k, 12);
            const std::vector<float> nb = random_values(k, 13);
            const std::vector<double> normed = layer_norm_reference(x, nw, nb, m, k);
            const Linear q = make_linear(normed, m, k, n, 20, true, true, true);
            const Linear kk = make_linear(normed, m, k, n, 30, false, false, false);
            const Linear v = make_linear(normed, m, k, n, 40, true, false, false);
            const std::vector<uint16_t> before(m * kHeads * kPositions * kDh, 0x3C00);  // 1.0
            FusedGemv args;
            args.x = device(x);
            args.m = I(m);
            args.k = I(k);
            args.norm_weight = device(nw);
            args.norm_bias = device(nb);
            args.norm_eps = kEps;
            args.linears[0] = upload(q);
            float* y = device<float>(m * n);
            args.linears[0].y = y;
            uint16_t* caches[2] = {device(before), device(before)};
            const int32_t* pos = device(std::vector<int32_t>{kPos});
            for (int c = 0; c < 2; ++c) {
                FusedLinear& l = args.linears[c + 1];
                l = upload(c == 0 ? kk : v);
                l.cache = caches[c];
                l.heads = I(kHeads);
                l.positions = I(kPositions);
                l.dh = I(kDh);
                l.pos = pos;
            }
            args.linear_count = 3;
            ASSERT_TRUE(k_->gemv_f16_fused(args));
            const std::string what = "k=" + std::to_string(k) + " m=" + std::to_string(m);
            EXPECT_WITHIN(compare_linear(host(y, m * n), q, false), "fused q " + what);
            for (int c = 0; c < 2; ++c) {
                const std::vector<uint16_t> cache = host(caches[c], before.size());
                std::vector<float> written;
                size_t changed_elsewhere = 0;
                for (size_t r = 0; r < m; ++r) {
                    for (size_t h = 0; h < kHeads; ++h) {
                        for (size_t t = 0; t < kPositions; ++t) {
                            for (size_t d = 0; d < kDh; ++d) {
                                const size_t at = ((r * kHeads + h) * kPositions + t) * kDh + d;
                                if (t == static_cast<size_t>(kPos)) {
                                    written.push_back(f16_to_f32(cache[at]));
                                } else if (cache[at] != before[at]) {
                                    ++changed_elsewhere;
                                }
                            }
                        }
                    }
                }
                EXPECT_EQ(changed_elsewhere, 0U) << "cache " << c << " " << what;
                // written is [m, H, Dh] in cache order, the linear's columns [m, n] in the same.
                EXPECT_WITHIN(compare_linear(written, c == 0 ? kk : v, true),
                              std::string(c == 0 ? "fused k cache " : "fused v cache ") + what);
            }
        }
    }
}

// Without a bias, GELU or residual, the fused GEMV's output equals the separate layer_norm
// kernel followed by gemv_f16_columns bit for bit: the same reductions and sums in the same
// order, so fusing changes no logit. Also without a LayerNorm (x read as it is).
TEST_F(FusedGemvOnCudaDevice, EqualsTheSeparateLayerNormAndGemvBitForBit) {
    const size_t k = 1280;
    const size_t n = 160;
    for (const size_t m : {size_t{1}, size_t{3}}) {
        const std::vector<float> x = random_values(m * k, 51, 3.0F);
        const std::vector<float> nw = random_values(k, 52);
        const std::vector<float> nb = random_values(k, 53);
        const std::vector<uint16_t> w = to_f16(random_values(n * k, 54, 0.05F));
        const std::vector<float> bias = random_values(n, 55);
        for (const bool norm : {true, false}) {
            float* normed = device<float>(m * k);
            if (norm) {
                k_->layer_norm(device(x), device(nw), device(nb), normed, I(m), I(k), kEps);
            } else {
                k_->upload(normed, x.data(), I(m * k * sizeof(float)));
            }
            float* separate = device<float>(m * n);
            k_->gemv_f16_columns(normed, device(w), device(bias), separate, I(m), I(k), I(n), true,
                                 nullptr);
            FusedGemv args;
            args.x = device(x);
            args.m = I(m);
            args.k = I(k);
            if (norm) {
                args.norm_weight = device(nw);
                args.norm_bias = device(nb);
                args.norm_eps = kEps;
            }
            args.linears[0].w = device(w);
            args.linears[0].bias = device(bias);
            args.linears[0].gelu = true;
            args.linears[0].n = I(n);
            float* fused = device<float>(m * n);
            args.linears[0].y = fused;
            args.linear_count = 1;
            ASSERT_TRUE(k_->gemv_f16_fused(args));
            EXPECT_EQ(host(fused, m * n), host(separate, m * n))
                << "m=" << m << (norm ? " with" : " without") << " the LayerNorm";
        }
    }
}

// What it refuses launches nothing and says so: rows past the GEMV's, rows without 16-byte
// loads, x too large for shared memory, a cache output whose heads do not make its columns.
TEST_F(FusedGemvOnCudaDevice, RefusesWhatItCannotTake) {
    EXPECT_TRUE(earshot::backend::cuda::fused_gemv_fits(8, 1280));
    EXPECT_FALSE(earshot::backend::cuda::fused_gemv_fits(9, 1280));
    EXPECT_FALSE(earshot::backend::cuda::fused_gemv_fits(1, 100));
    EXPECT_FALSE(earshot::backend::cuda::fused_gemv_fits(8, 1600));  // 51,328 bytes > 48 KiB
    const size_t k = 64;
    const std::vector<float> x = random_values(k, 61);
    const std::vector<uint16_t> w = to_f16(random_values(8 * k, 62));
    float* y = device(std::vector<float>(8, -7.0F));
    FusedGemv args;
    args.x = device(x);
    args.m = 1;
    args.k = I(k);
    args.linears[0].w = device(w);
    args.linears[0].n = 8;
    args.linears[0].y = y;
    args.linear_count = 0;
    EXPECT_FALSE(k_->gemv_f16_fused(args)) << "no linear";
    args.linear_count = 1;
    args.m = 9;
    EXPECT_FALSE(k_->gemv_f16_fused(args)) << "9 rows";
    args.m = 1;
    args.linears[0].y = nullptr;
    args.linears[0].cache = device<uint16_t>(8 * 4);
    args.linears[0].heads = 3;  // 3 x 2 != 8
    args.linears[0].dh = 2;
    args.linears[0].positions = 4;
    args.linears[0].pos = device(std::vector<int32_t>{1});
    EXPECT_FALSE(k_->gemv_f16_fused(args)) << "heads x dh != n";
    EXPECT_EQ(host(y, 8), std::vector<float>(8, -7.0F));
}

}  // namespace
