// The block dot products (backend/cpu/quant/block_dot.h) against the decoded blocks: the reference
// kernel equals the dot of the decoded weights with the decoded activations (its integer part is
// exact), stays within the activation rounding's bound of the dot with the f32 activations, and
// every ISA this CPU runs gives the reference's value within f32 summation error.
#include "backend/cpu/quant/block_dot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cpu/quant/q8_activations.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "ggml_quantizer.h"

namespace earshot::backend::cpu {
namespace {

using checkpoint::GgmlType;

const std::vector<GgmlType> kDotTypes = {GgmlType::q8_0, GgmlType::q5_0, GgmlType::q5_1,
                                         GgmlType::q4_0, GgmlType::q4_1};

std::string type_name(const testing::TestParamInfo<GgmlType>& info) {
    return std::string(checkpoint::ggml_type_name(info.param));
}

// normal(mean, 1) values with an outlier every 97th and a block of zeros at block 3.
std::vector<float> random_values(int64_t count, uint64_t seed, float mean) {
    std::mt19937_64 engine(seed);
    std::normal_distribution<float> normal(mean, 1.0F);
    std::vector<float> values(static_cast<size_t>(count));
    for (size_t i = 0; i < values.size(); ++i) {
        values[i] = i % 97 == 5 ? 7.5F : normal(engine);
    }
    for (size_t i = 96; i < 128 && i < values.size(); ++i) values[i] = 0.0F;
    return values;
}

TEST(Q8Activations, EveryValueWithinHalfALevelAndTheSumMatches) {
    const int64_t k = 512;
    const std::vector<float> x = random_values(k, 1, 0.0F);
    std::vector<Q8Block> q(k / 32);
    quantize_q8_activations(x.data(), k, q.data());
    for (int64_t b = 0; b < k / 32; ++b) {
        const Q8Block& block = q[static_cast<size_t>(b)];
        float amax = 0.0F;
        int total = 0;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[size_t(b * 32 + j)]));
        EXPECT_FLOAT_EQ(block.d, amax / 127.0F) << b;
        for (int j = 0; j < 32; ++j) {
            const float value = x[size_t(b * 32 + j)];
            EXPECT_LE(std::fabs(value - block.d * static_cast<float>(block.qs[j])),
                      0.5F * block.d * 1.0001F)
                << b << " " << j;
            total += block.qs[j];
        }
        EXPECT_FLOAT_EQ(block.sum, block.d * static_cast<float>(total));
        if (amax > 0.0F) {
            // The largest value lands on +-127.
            int largest = 0;
            for (int j = 0; j < 32; ++j) largest = std::max(largest, std::abs(int{block.qs[j]}));
            EXPECT_EQ(largest, 127) << b;
        }
    }
    EXPECT_EQ(q[3].d, 0.0F);  // the block of zeros
    for (int j = 0; j < 32; ++j) EXPECT_EQ(q[3].qs[j], 0);
}

class BlockDotKernels : public testing::TestWithParam<GgmlType> {};

TEST_P(BlockDotKernels, ReferenceIsTheDotOfTheDecodedBlocksWithinTheActivationBound) {
    const GgmlType type = GetParam();
    const int64_t k = 1024;
    const int64_t blocks = k / 32;
    // Weights of one sign-heavy row (mean 0.7) so that the _1 types' min matters.
    const std::vector<float> w = random_values(k, 2, 0.7F);
    const std::vector<std::byte> wq = test::quantize_ggml(type, w);
    std::vector<float> w_decoded(static_cast<size_t>(k));
    checkpoint::dequantize_ggml_blocks(type, wq, w_decoded);
    const std::vector<float> x = random_values(k, 3, -0.2F);
    std::vector<Q8Block> xq(static_cast<size_t>(blocks));
    quantize_q8_activations(x.data(), k, xq.data());

    double with_decoded_x = 0.0;  // decoded weights . decoded activations
    double with_f32_x = 0.0;      // decoded weights . f32 activations (what the f32 path computes)
    double magnitude = 0.0;       // sum |w x|, the scale of the summation error
    double bound = 0.0;           // sum over blocks of d_x / 2 x sum |w|
    for (int64_t b = 0; b < blocks; ++b) {
        const Q8Block& block = xq[static_cast<size_t>(b)];
        double w_abs = 0.0;
        for (int j = 0; j < 32; ++j) {
            const auto i = static_cast<size_t>(b * 32 + j);
            const double wi = w_decoded[i];
            with_decoded_x += wi * double(block.d) * double(block.qs[j]);
            with_f32_x += wi * double(x[i]);
            magnitude += std::fabs(wi * double(x[i]));
            w_abs += std::fabs(wi);
        }
        bound += 0.5 * double(block.d) * w_abs;
    }
    const BlockDot dot = block_dot(type, BlockDotIsa::reference);
    ASSERT_NE(dot, nullptr);
    const double got = dot(wq.data(), xq.data(), blocks);
    EXPECT_NEAR(got, with_decoded_x, 2e-6 * magnitude);
    EXPECT_LE(std::fabs(got - with_f32_x), bound + 2e-6 * magnitude);
    // The activation rounding is visible, and far smaller than the dot.
    EXPECT_NE(got, with_f32_x);
    EXPECT_LT(bound, 0.05 * magnitude);
}

TEST_P(BlockDotKernels, EveryIsaThisCpuRunsGivesTheReferenceValue) {
    const GgmlType type = GetParam();
    const BlockDot reference = block_dot(type, BlockDotIsa::reference);
    int checked = 0;
    for (const BlockDotIsa isa : {BlockDotIsa::avx2, BlockDotIsa::avx512_vnni}) {
        if (static_cast<int>(isa) > static_cast<int>(cpu_block_dot_isa())) continue;
        const BlockDot dot = block_dot(type, isa);
        ASSERT_NE(dot, nullptr) << block_dot_isa_name(isa);
        // Odd and even block counts (the kernels take blocks in pairs), one block alone.
        for (const int64_t blocks : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{48}}) {
            const int64_t k = blocks * 32;
            for (uint64_t seed = 10; seed < 14; ++seed) {
                const std::vector<float> w = random_values(k, seed, seed % 2 == 0 ? 0.0F : 0.5F);
                const std::vector<std::byte> wq = test::quantize_ggml(type, w);
                const std::vector<float> x = random_values(k, seed + 100, 0.1F);
                std::vector<Q8Block> xq(static_cast<size_t>(blocks));
                quantize_q8_activations(x.data(), k, xq.data());
                double magnitude = 0.0;
                for (int64_t i = 0; i < k; ++i) {
                    magnitude += std::fabs(double(w[size_t(i)]) * double(x[size_t(i)]));
                }
                const float want = reference(wq.data(), xq.data(), blocks);
                const float got = dot(wq.data(), xq.data(), blocks);
                EXPECT_NEAR(got, want, 4e-6 * magnitude)
                    << block_dot_isa_name(isa) << " blocks " << blocks << " seed " << seed;
            }
        }
        ++checked;
    }
    std::cout << "[          ] " << checkpoint::ggml_type_name(type) << ": " << checked
              << " SIMD kernel(s) checked; this CPU's best is "
              << block_dot_isa_name(cpu_block_dot_isa()) << "\n";
}

// The several-row kernels (a beam's rows against one weight row) give each row the one-row
// kernel's value, bit for bit, on every ISA.
TEST_P(BlockDotKernels, SeveralRowsGiveEachRowItsOneRowValue) {
    const GgmlType type = GetParam();
    const int64_t blocks = 9;
    const int64_t k = blocks * 32;
    const std::vector<std::byte> wq = test::quantize_ggml(type, random_values(k, 21, 0.3F));
    const std::vector<float> x = random_values(kBlockDotMaxRows * k, 22, 0.0F);
    std::vector<Q8Block> xq(static_cast<size_t>(kBlockDotMaxRows * blocks));
    quantize_q8_activations(x.data(), kBlockDotMaxRows * k, xq.data());
    for (const BlockDotIsa isa :
         {BlockDotIsa::reference, BlockDotIsa::avx2, BlockDotIsa::avx512_vnni}) {
        if (static_cast<int>(isa) > static_cast<int>(cpu_block_dot_isa())) continue;
        const BlockDot one = block_dot(type, isa);
        const BlockDotRows several = block_dot_rows(type, isa);
        ASSERT_NE(several, nullptr) << block_dot_isa_name(isa);
        for (int rows = 1; rows <= kBlockDotMaxRows; ++rows) {
            float out[kBlockDotMaxRows] = {};
            several(wq.data(), xq.data(), blocks, rows, blocks, out);
            for (int r = 0; r < rows; ++r) {
                EXPECT_EQ(out[r], one(wq.data(), xq.data() + r * blocks, blocks))
                    << block_dot_isa_name(isa) << " rows " << rows << " row " << r;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(LegacyTypes, BlockDotKernels, testing::ValuesIn(kDotTypes), type_name);

// The k-quants have their own kernels (block_dot_k.h, block_dot_k_test.cpp), f16 and f32 none.
TEST(BlockDotTable, OnlyTheLegacyTypesHaveABlockDot) {
    for (const GgmlType type : {GgmlType::q2_k, GgmlType::q3_k, GgmlType::q4_k, GgmlType::q5_k,
                                GgmlType::q6_k, GgmlType::f16, GgmlType::f32}) {
        EXPECT_FALSE(has_block_dot(type)) << checkpoint::ggml_type_name(type);
        EXPECT_EQ(block_dot(type, cpu_block_dot_isa()), nullptr);
    }
    for (const GgmlType type : kDotTypes) EXPECT_TRUE(has_block_dot(type));
}

// EARSHOT_CPU_ISA lowers the kernels every product uses (an AVX2 + F16C laptop's on an AVX-512
// machine); a name it does not know, or an ISA above what the CPU runs, is refused naming it.
TEST(BlockDotIsaChoice, TheVariableLowersTheIsaAndRefusesWhatTheCpuLacks) {
    EXPECT_EQ(chosen_block_dot_isa(BlockDotIsa::avx512_vnni, nullptr), BlockDotIsa::avx512_vnni);
    EXPECT_EQ(chosen_block_dot_isa(BlockDotIsa::avx512_vnni, ""), BlockDotIsa::avx512_vnni);
    EXPECT_EQ(chosen_block_dot_isa(BlockDotIsa::avx512_vnni, "avx2"), BlockDotIsa::avx2);
    EXPECT_EQ(chosen_block_dot_isa(BlockDotIsa::avx2, "reference"), BlockDotIsa::reference);
    EXPECT_EQ(chosen_block_dot_isa(BlockDotIsa::avx2, "avx2"), BlockDotIsa::avx2);
    const auto message = [](BlockDotIsa cpu, const char* asked) {
        try {
            chosen_block_dot_isa(cpu, asked);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(message(BlockDotIsa::avx2, "avx512-vnni"),
              "EARSHOT_CPU_ISA=avx512-vnni: this CPU runs at most avx2");
    EXPECT_EQ(message(BlockDotIsa::avx512_vnni, "AVX2"),
              "EARSHOT_CPU_ISA=AVX2: not one of reference, avx2, avx512-vnni");
}

}  // namespace
}  // namespace earshot::backend::cpu
