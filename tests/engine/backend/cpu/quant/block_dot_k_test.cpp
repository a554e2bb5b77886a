// The k-quant block dots (backend/cpu/quant/block_dot_k.h) against the decoded super-blocks: the
// reference kernel equals the dot of the decoded weights (checkpoint/ggml_k_quants.cpp, decoded
// independently) with the decoded activations, and stays within the activation rounding's bound
// of the dot with the f32 activations; each x86 kernel, chosen explicitly (AVX2 and AVX-512 both
// run on an AVX-512 CPU), gives the reference's value within f32 summation error, on quantized
// values and on blocks of random bytes (every bit pattern of levels and scales); the several-row
// kernels give each row its one-row value bit for bit.
#include "backend/cpu/quant/block_dot_k.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/quant/q8_activations.h"
#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "ggml_quantizer.h"

namespace earshot::backend::cpu {
namespace {

using checkpoint::GgmlType;

const std::vector<GgmlType> kKTypes = {GgmlType::q2_k, GgmlType::q3_k, GgmlType::q4_k,
                                       GgmlType::q5_k, GgmlType::q6_k};

std::string type_name(const testing::TestParamInfo<GgmlType>& info) {
    return std::string(checkpoint::ggml_type_name(info.param));
}

// normal(mean, 1) values with an outlier every 97th and 32 zeros from value 96.
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

// `blocks` super-blocks of random bytes, their f16 d (and dmin) set to finite values in
// [0.001, 0.02]: every level, scale and min the format can hold.
std::vector<std::byte> random_blocks(GgmlType type, int64_t blocks, uint64_t seed) {
    const auto layout = checkpoint::ggml_block_layout(type);
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(0.001F, 0.02F);
    std::vector<std::byte> bytes(static_cast<size_t>(blocks) * layout.bytes);
    for (std::byte& b : bytes) b = static_cast<std::byte>(byte(engine));
    // Where d and dmin lie (ggml-common.h): q2_k 80, 82; q3_k 108; q4_k, q5_k 0, 2; q6_k 208.
    std::vector<size_t> halves;
    switch (type) {
        case GgmlType::q2_k:
            halves = {80, 82};
            break;
        case GgmlType::q3_k:
            halves = {108};
            break;
        case GgmlType::q6_k:
            halves = {208};
            break;
        default:
            halves = {0, 2};
    }
    for (int64_t b = 0; b < blocks; ++b) {
        for (const size_t at : halves) {
            const uint16_t bits = base::f32_to_f16(scale(engine));
            std::memcpy(bytes.data() + static_cast<size_t>(b) * layout.bytes + at, &bits, 2);
        }
    }
    return bytes;
}

TEST(Q8KActivations, EveryValueWithinHalfALevelAndTheSumsOfSixteenMatch) {
    const int64_t k = 512;
    const std::vector<float> x = random_values(k, 1, 0.0F);
    std::vector<Q8KBlock> q(k / 256);
    quantize_q8k_activations(x.data(), k, q.data());
    for (int64_t b = 0; b < k / 256; ++b) {
        const Q8KBlock& block = q[size_t(b)];
        float amax = 0.0F;
        for (int j = 0; j < 256; ++j) amax = std::max(amax, std::fabs(x[size_t(b * 256 + j)]));
        EXPECT_FLOAT_EQ(block.d, amax / 127.0F) << b;
        int largest = 0;
        for (int i = 0; i < 16; ++i) {
            int total = 0;
            for (int l = 0; l < 16; ++l) {
                const int j = 16 * i + l;
                const float value = x[size_t(b * 256 + j)];
                EXPECT_LE(std::fabs(value - block.d * float(block.qs[j])), 0.5F * block.d * 1.0001F)
                    << b << " " << j;
                total += block.qs[j];
                largest = std::max(largest, std::abs(int{block.qs[j]}));
            }
            EXPECT_EQ(block.bsums[i], total) << b << " " << i;
        }
        EXPECT_EQ(largest, 127) << b;  // the largest value lands on +-127
    }
    // Values 96 .. 127 are zeros: their two sums of sixteen are 0.
    EXPECT_EQ(q[0].bsums[6], 0);
    EXPECT_EQ(q[0].bsums[7], 0);
}

class KBlockDotKernels : public testing::TestWithParam<GgmlType> {};

TEST_P(KBlockDotKernels, ReferenceIsTheDotOfTheDecodedBlocksWithinTheActivationBound) {
    const GgmlType type = GetParam();
    const int64_t k = 1024;
    const int64_t blocks = k / 256;
    for (const bool random_bytes : {false, true}) {
        // A sign-heavy row (mean 0.7), so that the mins matter, or random bytes.
        const std::vector<std::byte> wq =
            random_bytes ? random_blocks(type, blocks, 2)
                         : test::quantize_ggml(type, random_values(k, 2, 0.7F));
        std::vector<float> w(static_cast<size_t>(k));
        checkpoint::dequantize_ggml_blocks(type, wq, w);
        const std::vector<float> x = random_values(k, 3, -0.2F);
        std::vector<Q8KBlock> xq(static_cast<size_t>(blocks));
        quantize_q8k_activations(x.data(), k, xq.data());

        double with_decoded_x = 0.0;  // decoded weights . decoded activations
        double with_f32_x = 0.0;      // decoded weights . f32 activations (the f32 path)
        double magnitude = 0.0;       // sum |w x|, the scale of the summation error
        double bound = 0.0;           // sum over blocks of d_x / 2 x sum |w|
        for (int64_t i = 0; i < k; ++i) {
            const Q8KBlock& block = xq[size_t(i / 256)];
            const double wi = w[size_t(i)];
            with_decoded_x += wi * double(block.d) * double(block.qs[i % 256]);
            with_f32_x += wi * double(x[size_t(i)]);
            magnitude += std::fabs(wi * double(x[size_t(i)]));
            bound += 0.5 * double(block.d) * std::fabs(wi);
        }
        const KBlockDot dot = k_block_dot(type, BlockDotIsa::reference);
        ASSERT_NE(dot, nullptr);
        const double got = dot(wq.data(), xq.data(), blocks);
        EXPECT_NEAR(got, with_decoded_x, 2e-6 * magnitude) << "random bytes " << random_bytes;
        EXPECT_LE(std::fabs(got - with_f32_x), bound + 2e-6 * magnitude);
        EXPECT_NE(got, with_f32_x);  // the activation rounding is visible
        EXPECT_LT(bound, 0.05 * magnitude);
    }
}

TEST_P(KBlockDotKernels, EachX86KernelGivesTheReferenceValue) {
    const GgmlType type = GetParam();
    const KBlockDot reference = k_block_dot(type, BlockDotIsa::reference);
    int checked = 0;
    for (const BlockDotIsa isa : {BlockDotIsa::avx2, BlockDotIsa::avx512_vnni}) {
        if (static_cast<int>(isa) > static_cast<int>(cpu_block_dot_isa())) continue;
        const KBlockDot dot = k_block_dot(type, isa);
        ASSERT_NE(dot, nullptr) << block_dot_isa_name(isa);
        for (const int64_t blocks : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}}) {
            const int64_t k = blocks * 256;
            for (uint64_t seed = 10; seed < 16; ++seed) {
                const bool random_bytes = seed % 3 == 0;
                const std::vector<std::byte> wq =
                    random_bytes ? random_blocks(type, blocks, seed)
                                 : test::quantize_ggml(
                                       type, random_values(k, seed, seed % 2 == 0 ? 0.0F : 0.5F));
                std::vector<float> w(static_cast<size_t>(k));
                checkpoint::dequantize_ggml_blocks(type, wq, w);
                const std::vector<float> x = random_values(k, seed + 100, 0.1F);
                std::vector<Q8KBlock> xq(static_cast<size_t>(blocks));
                quantize_q8k_activations(x.data(), k, xq.data());
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

TEST_P(KBlockDotKernels, SeveralRowsGiveEachRowItsOneRowValue) {
    const GgmlType type = GetParam();
    const int64_t blocks = 3;
    const int64_t k = blocks * 256;
    const std::vector<std::byte> wq = random_blocks(type, blocks, 21);
    const std::vector<float> x = random_values(kKBlockDotMaxRows * k, 22, 0.0F);
    std::vector<Q8KBlock> xq(static_cast<size_t>(kKBlockDotMaxRows * blocks));
    quantize_q8k_activations(x.data(), kKBlockDotMaxRows * k, xq.data());
    for (const BlockDotIsa isa :
         {BlockDotIsa::reference, BlockDotIsa::avx2, BlockDotIsa::avx512_vnni}) {
        if (static_cast<int>(isa) > static_cast<int>(cpu_block_dot_isa())) continue;
        const KBlockDot one = k_block_dot(type, isa);
        const KBlockDotRows several = k_block_dot_rows(type, isa);
        ASSERT_NE(several, nullptr) << block_dot_isa_name(isa);
        for (int rows = 1; rows <= kKBlockDotMaxRows; ++rows) {
            float out[kKBlockDotMaxRows] = {};
            several(wq.data(), xq.data(), blocks, rows, blocks, out);
            for (int r = 0; r < rows; ++r) {
                EXPECT_EQ(out[r], one(wq.data(), xq.data() + r * blocks, blocks))
                    << block_dot_isa_name(isa) << " rows " << rows << " row " << r;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(KQuants, KBlockDotKernels, testing::ValuesIn(kKTypes), type_name);

TEST(KBlockDotTable, OnlyTheKQuantsHaveAKBlockDot) {
    for (const GgmlType type : kKTypes) {
        EXPECT_TRUE(has_k_block_dot(type)) << checkpoint::ggml_type_name(type);
        EXPECT_NE(k_block_dot_rows(type, cpu_block_dot_isa()), nullptr);
    }
    for (const GgmlType type : {GgmlType::q8_0, GgmlType::q5_0, GgmlType::q5_1, GgmlType::q4_0,
                                GgmlType::q4_1, GgmlType::f16, GgmlType::f32}) {
        EXPECT_FALSE(has_k_block_dot(type)) << checkpoint::ggml_type_name(type);
        EXPECT_EQ(k_block_dot(type, cpu_block_dot_isa()), nullptr);
    }
}

}  // namespace
}  // namespace earshot::backend::cpu
