// The GEMVs over quantized weight blocks (q8_0, q5_0, q4_0; module/gemv_blocks.cuh) against the
// CPU backend's block dot products on the same random blocks, the blocks decoded to f16 against
// the engine's decoding, and the fused GEMV on blocks against the separate LayerNorm and block
// GEMV. Runs on the emulated module here and on a GPU (*OnCudaDevice).
//
// The tolerance of a dot: the device quantizes x to 8 bits per block exactly as
// quantize_q8_activations does and adds d_w d_x sum(q_w q_x) per quarter block, so the integer
// parts are exact and only the f32 roundings differ. Each side rounds each term twice (2^-24
// relative each) and adds at most blocks + 4 x ceil(blocks / 8) + 5 terms in some order; so
// |device - cpu| <= (blocks + 16) 2^-23 x sum over blocks of |d_w d_x| sum |q_w q_x|. A level
// rounded differently would be off by d_w d_x |q_w| >= that bound, so the test sees it.
#include <cstddef>

#include "backend/cpu/quant/block_dot.h"
#include "backend/cpu/quant/q8_activations.h"
#include "backend/cuda/cuda_launch_rules.h"
#include "backend/cuda/module_loader.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/ggml_quantize.h"
#include "kernel_table_fixture.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests
using earshot::backend::cpu::Q8Block;
using earshot::backend::cuda::FusedGemv;
using earshot::checkpoint::GgmlType;

constexpr GgmlType kTypes[] = {GgmlType::q8_0, GgmlType::q5_0, GgmlType::q4_0};

std::string name_of(GgmlType type) {
    return std::string(earshot::checkpoint::ggml_type_name(type));
}

// Random weights [n, k] as blocks of `type` (rows of k / 32 blocks), the way a file holds them.
std::vector<std::byte> random_blocks(GgmlType type, size_t n, size_t k, uint32_t seed) {
    const std::vector<float> values = random_values(n * k, seed, 0.1F);
    return earshot::checkpoint::quantize_ggml_blocks(type, values);
}

// The CPU's dots of each weight row with each row of x [m, k], and their tolerances.
struct Reference {
    std::vector<double> want;       // [m, n]
    std::vector<double> tolerance;  // [m, n]
};

Reference cpu_dots(GgmlType type, const std::vector<std::byte>& w, const std::vector<float>& x,
                   size_t m, size_t k, size_t n) {
    const auto dot = earshot::backend::cpu::reference_block_dot(type);
    const size_t blocks = k / 32;
    const size_t row_bytes = blocks * earshot::checkpoint::ggml_block_layout(type).bytes;
    std::vector<float> decoded(n * k);
    earshot::checkpoint::dequantize_ggml_blocks(type, w, decoded);
    Reference ref;
    std::vector<Q8Block> xq(blocks);
    for (size_t r = 0; r < m; ++r) {
        earshot::backend::cpu::quantize_q8_activations(x.data() + r * k, I(k), xq.data());
        for (size_t c = 0; c < n; ++c) {
            ref.want.push_back(dot(w.data() + c * row_bytes, xq.data(), I(blocks)));
            double size = 0.0;  // sum of |d_w q_w| |d_x q_x|
            for (size_t j = 0; j < k; ++j) {
                size += std::abs(D(decoded[c * k + j])) *
                        std::abs(D(xq[j / 32].d) * xq[j / 32].qs[j % 32]);
            }
            ref.tolerance.push_back(static_cast<double>(blocks + 16) * 0x1p-23 * size + 1e-30);
        }
    }
    return ref;
}

class GemvBlocksOnCudaDevice : public KernelTableFixture {};

// The block sizes the kernels read are the engine's (checkpoint/ggml_blocks.h), and no other type
// is read as blocks.
TEST_F(GemvBlocksOnCudaDevice, BlockSizesAreTheEngines) {
    for (const GgmlType type : kTypes) {
        EXPECT_EQ(k_->block_bytes(static_cast<int32_t>(type)),
                  I(earshot::checkpoint::ggml_block_layout(type).bytes))
            << name_of(type);
    }
    for (const GgmlType type : {GgmlType::q4_1, GgmlType::q5_1, GgmlType::q4_k, GgmlType::f16}) {
        EXPECT_EQ(k_->block_bytes(static_cast<int32_t>(type)), 0) << name_of(type);
    }
}

// Every type, one row and a beam of 8 (and 3), k from 3 blocks (fewer than a warp's 8 per
// iteration) to 40, n not a multiple of the columns per warp.
TEST_F(GemvBlocksOnCudaDevice, MatchesTheCpuBlockDots) {
    for (const GgmlType type : kTypes) {
        for (const size_t k : {size_t{96}, size_t{1280}}) {
            for (const size_t m : {size_t{1}, size_t{3}, size_t{8}}) {
                const size_t n = 37;
                const std::vector<std::byte> w = random_blocks(type, n, k, 5);
                const std::vector<float> x = random_values(m * k, 6, 2.0F);
                const Reference ref = cpu_dots(type, w, x, m, k, n);
                float* y = device<float>(m * n);
                ASSERT_TRUE(k_->gemv_blocks(device(x), device(w), static_cast<int32_t>(type),
                                            nullptr, y, I(m), I(k), I(n), false, nullptr));
                const std::vector<float> got = host(y, m * n);
                size_t at = 0;
                EXPECT_WITHIN(
                    compare<float>(got, ref.want, [&](double) { return ref.tolerance[at++]; }),
                    name_of(type) + " m=" + std::to_string(m) + " k=" + std::to_string(k));
            }
        }
    }
}

// Bias, GELU and residual in the same pass, as gemv_f16_columns applies them.
TEST_F(GemvBlocksOnCudaDevice, AppliesBiasAndEpilogue) {
    constexpr size_t m = 2, k = 256, n = 19;
    for (const GgmlType type : kTypes) {
        const std::vector<std::byte> w = random_blocks(type, n, k, 7);
        const std::vector<float> x = random_values(m * k, 8);
        const std::vector<float> bias = random_values(n, 9);
        const std::vector<float> residual = random_values(m * n, 10);
        const Reference ref = cpu_dots(type, w, x, m, k, n);
        std::vector<double> want;
        std::vector<double> tolerance;
        for (size_t r = 0; r < m; ++r) {
            for (size_t c = 0; c < n; ++c) {
                const double dot = ref.want[r * n + c] + D(bias[c]);
                want.push_back(gelu(dot) + D(residual[r * n + c]));
                // The dot's error passes through GELU (slope <= 1.13), plus f32 roundings.
                tolerance.push_back(1.2 * ref.tolerance[r * n + c] + 1e-6 * std::abs(want.back()) +
                                    1e-6);
            }
        }
        float* y = device<float>(m * n);
        ASSERT_TRUE(k_->gemv_blocks(device(x), device(w), static_cast<int32_t>(type), device(bias),
                                    y, I(m), I(k), I(n), true, device(residual)));
        const std::vector<float> got = host(y, m * n);
        size_t at = 0;
        EXPECT_WITHIN(compare<float>(got, want, [&](double) { return tolerance[at++]; }),
                      name_of(type) + " with bias, GELU and residual");
    }
}

// Types without a block GEMV and rows that are not whole blocks are refused, nothing written.
TEST_F(GemvBlocksOnCudaDevice, RefusesOtherTypesAndPartialBlocks) {
    const std::vector<std::byte> w = random_blocks(GgmlType::q8_0, 4, 64, 3);
    const std::vector<float> x = random_values(64, 4);
    float* y = device(std::vector<float>(4, 42.0F));
    EXPECT_FALSE(k_->gemv_blocks(device(x), device(w), static_cast<int32_t>(GgmlType::q4_1),
                                 nullptr, y, 1, 64, 4, false, nullptr));
    EXPECT_FALSE(k_->gemv_blocks(device(x), device(w), static_cast<int32_t>(GgmlType::q8_0),
                                 nullptr, y, 1, 48, 4, false, nullptr));
    EXPECT_EQ(host(y, 4), std::vector<float>(4, 42.0F));
}

// Decoded to f16 for a GEMM: the engine's decoding (d x level in f32) rounded to f16, bit for bit.
TEST_F(GemvBlocksOnCudaDevice, DecodesToTheEnginesValuesInF16) {
    constexpr size_t n = 5, k = 160;
    for (const GgmlType type : kTypes) {
        const std::vector<std::byte> w = random_blocks(type, n, k, 12);
        std::vector<float> decoded(n * k);
        earshot::checkpoint::dequantize_ggml_blocks(type, w, decoded);
        uint16_t* y = device<uint16_t>(n * k);
        ASSERT_TRUE(
            k_->dequantize_blocks_f16(device(w), static_cast<int32_t>(type), y, I(n * k / 32)));
        EXPECT_EQ(host(y, n * k), to_f16(decoded)) << name_of(type);
    }
}

// The fused GEMV on blocks (LayerNorm, q to f32, k into a cache at pos) writes bit for bit what
// the separate LayerNorm and block GEMV write: the same normalised x, the same inner loop.
TEST_F(GemvBlocksOnCudaDevice, FusedMatchesLayerNormThenGemvBitForBit) {
    constexpr size_t kHeads = 2, kDh = 32, kPositions = 6, n = kHeads * kDh, k = 320;
    constexpr int32_t kPos = 4;
    for (const GgmlType type : kTypes) {
        for (const size_t m : {size_t{1}, size_t{4}}) {
            const std::vector<float> x = random_values(m * k, 21, 2.0F);
            const std::vector<float> nw = random_values(k, 22);
            const std::vector<float> nb = random_values(k, 23);
            const std::vector<std::byte> wq = random_blocks(type, n, k, 24);
            const std::vector<std::byte> wk = random_blocks(type, n, k, 25);
            const std::vector<float> bq = random_values(n, 26);
            const auto block_type = static_cast<int32_t>(type);

            // Separately: LayerNorm, then the two GEMVs.
            float* normed = device<float>(m * k);
            k_->layer_norm(device(x), device(nw), device(nb), normed, I(m), I(k), 1e-5F);
            float* yq_separate = device<float>(m * n);
            float* yk_separate = device<float>(m * n);
            ASSERT_TRUE(k_->gemv_blocks(normed, device(wq), block_type, device(bq), yq_separate,
                                        I(m), I(k), I(n), false, nullptr));
            ASSERT_TRUE(k_->gemv_blocks(normed, device(wk), block_type, nullptr, yk_separate, I(m),
                                        I(k), I(n), false, nullptr));

            FusedGemv args;
            args.x = device(x);
            args.m = I(m);
            args.k = I(k);
            args.norm_weight = device(nw);
            args.norm_bias = device(nb);
            args.norm_eps = 1e-5F;
            args.block_type = block_type;
            args.linear_count = 2;
            args.linears[0].w = reinterpret_cast<const uint16_t*>(device(wq));
            args.linears[0].bias = device(bq);
            args.linears[0].n = I(n);
            float* yq = device<float>(m * n);
            args.linears[0].y = yq;
            args.linears[1].w = reinterpret_cast<const uint16_t*>(device(wk));
            args.linears[1].n = I(n);
            const std::vector<uint16_t> zeros(m * kHeads * kPositions * kDh, 0);
            uint16_t* cache = device(zeros);
            args.linears[1].cache = cache;
            args.linears[1].heads = I(kHeads);
            args.linears[1].positions = I(kPositions);
            args.linears[1].dh = I(kDh);
            args.linears[1].pos = device(std::vector<int32_t>{kPos});
            ASSERT_TRUE(k_->gemv_f16_fused(args));

            EXPECT_EQ(host(yq, m * n), host(yq_separate, m * n)) << name_of(type) << " m=" << m;
            const std::vector<float> k_values = host(yk_separate, m * n);
            const std::vector<uint16_t> got_cache = host(cache, zeros.size());
            std::vector<uint16_t> want_cache = zeros;
            for (size_t r = 0; r < m; ++r) {
                for (size_t c = 0; c < n; ++c) {
                    const size_t at = ((r * kHeads + c / kDh) * kPositions + kPos) * kDh + c % kDh;
                    want_cache[at] = f32_to_f16(k_values[r * n + c]);
                }
            }
            EXPECT_EQ(got_cache, want_cache) << name_of(type) << " m=" << m;
            // And not merely equal to each other: q against the CPU's dots of the normalised x.
            const Reference ref = cpu_dots(type, wq, host(normed, m * k), m, k, n);
            std::vector<double> want;
            for (size_t i = 0; i < ref.want.size(); ++i) want.push_back(ref.want[i] + D(bq[i % n]));
            size_t at = 0;
            EXPECT_WITHIN(
                compare<float>(host(yq, m * n), want,
                               [&](double v) { return ref.tolerance[at++] + 1e-6 * std::abs(v); }),
                name_of(type) + " fused q");
        }
    }
}

// A fused group on blocks refuses rows that are not whole blocks (then nothing runs).
TEST_F(GemvBlocksOnCudaDevice, FusedRefusesPartialBlocks) {
    const std::vector<std::byte> w = random_blocks(GgmlType::q5_0, 4, 64, 31);
    FusedGemv args;
    args.x = device(random_values(40, 32));
    args.m = 1;
    args.k = 40;
    args.block_type = static_cast<int32_t>(GgmlType::q5_0);
    args.linear_count = 1;
    args.linears[0].w = reinterpret_cast<const uint16_t*>(device(w));
    args.linears[0].n = 4;
    args.linears[0].y = device<float>(4);
    EXPECT_FALSE(k_->gemv_f16_fused(args));
    args.k = 64;
    args.block_type = static_cast<int32_t>(GgmlType::q4_1);
    EXPECT_FALSE(k_->gemv_f16_fused(args));
}

// A model's block weights are checked when they are added: whole blocks of a type the GEMVs
// read, exactly the bytes those blocks take; anything else is refused with the parameter named.
TEST_F(GemvBlocksOnCudaDevice, ModelRefusesBlocksOfTheWrongSizeOrType) {
    const auto model = earshot::backend::cuda::load_module().open(0, "the test model");
    const std::vector<std::byte> bytes(64);
    earshot::backend::cuda::HostParam param;
    param.path = "decoder_layers.0.mlp.fc1.weight";
    param.elements = 64;  // two q5_0 blocks: 44 bytes
    param.blocks = bytes.data();
    param.block_type = static_cast<int32_t>(GgmlType::q5_0);
    auto refusal = [&]() -> std::string {
        try {
            model->add_param(param);
        } catch (const std::invalid_argument& error) {
            return error.what();
        }
        return "";
    };
    param.block_bytes = 43;
    EXPECT_EQ(refusal(),
              "parameter decoder_layers.0.mlp.fc1.weight: 43 bytes of blocks of ggml type 6 for 64 "
              "values; the CUDA module keeps whole q8_0, q5_0 or q4_0 blocks only");
    param.block_bytes = 48;  // two q4_1 blocks, a type without a block GEMV
    param.block_type = static_cast<int32_t>(GgmlType::q4_1);
    EXPECT_NE(refusal().find("ggml type 3 for 64 values"), std::string::npos);
    param.elements = 48;  // not whole blocks
    param.block_bytes = 33;
    param.block_type = static_cast<int32_t>(GgmlType::q5_0);
    EXPECT_NE(refusal().find("33 bytes"), std::string::npos);
    param.elements = 64;
    param.block_bytes = 44;
    EXPECT_EQ(refusal(), "");  // the right size is taken
}

}  // namespace
