// Products and lookups over quantized blocks (backend/cpu/quant/block_linear.h) against the same
// product of the decoded weights in double: few-row products within the activation rounding's
// bound, many-row products (decoded panels through sgemm) within f32 error; the values do not
// depend on the number of threads; lookups decode their rows exactly.
#include "backend/cpu/quant/block_linear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_threads.h"
#include "backend/cpu/quant/block_dot_k.h"
#include "backend/cpu/quant/q8_activations.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "ggml_quantizer.h"

namespace earshot::backend::cpu {
namespace {

using checkpoint::GgmlType;

const std::vector<GgmlType> kAllTypes = {
    GgmlType::q8_0, GgmlType::q5_0, GgmlType::q5_1, GgmlType::q4_0, GgmlType::q4_1,
    GgmlType::q2_k, GgmlType::q3_k, GgmlType::q4_k, GgmlType::q5_k, GgmlType::q6_k};

std::string type_name(const testing::TestParamInfo<GgmlType>& info) {
    return std::string(checkpoint::ggml_type_name(info.param));
}

std::vector<float> normal_values(int64_t count, uint64_t seed, float sigma) {
    std::mt19937_64 engine(seed);
    std::normal_distribution<float> normal(0.0F, sigma);
    std::vector<float> values(static_cast<size_t>(count));
    for (float& v : values) v = normal(engine);
    return values;
}

// A [n, k] matrix of normal(0, 0.05) values in `type`, with its blocks and decoded values.
struct QuantizedMatrix {
    std::vector<std::byte> blocks;
    std::vector<float> decoded;  // [n, k]
    BlockMatrix matrix;
};

QuantizedMatrix quantized_matrix(GgmlType type, int64_t n, int64_t k) {
    QuantizedMatrix q;
    q.blocks = test::quantize_ggml(type, normal_values(n * k, 5, 0.05F));
    q.decoded.resize(static_cast<size_t>(n * k));
    checkpoint::dequantize_ggml_blocks(type, q.blocks, q.decoded);
    q.matrix = BlockMatrix{type, q.blocks.data(), n, k, static_cast<int64_t>(q.blocks.size()) / n};
    return q;
}

class BlockLinear : public testing::TestWithParam<GgmlType> {};

TEST_P(BlockLinear, FewAndManyRowsMatchTheDecodedProduct) {
    const GgmlType type = GetParam();
    const int64_t n = 70;  // not a multiple of any grain or panel
    const int64_t k = 512;
    const QuantizedMatrix w = quantized_matrix(type, n, k);
    const std::vector<float> bias = normal_values(n, 6, 1.0F);
    const bool k_quant = has_k_block_dot(type);
    const bool integer_dot = has_block_dot(type) || k_quant;
    for (const int64_t m : {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{9}, int64_t{40}}) {
        const std::vector<float> x = normal_values(m * k, 7 + static_cast<uint64_t>(m), 1.0F);
        std::vector<float> y(static_cast<size_t>(m * n));
        linear_blocks(x.data(), w.matrix, bias.data(), y.data(), m, k, n);
        // The activation rounding of the few-row products: per block d_x / 2 x sum |w|, with
        // blocks of 32 (Q8Block) or, for the k-quants, 256 (Q8KBlock).
        std::vector<Q8Block> xq(static_cast<size_t>(k / 32));
        std::vector<Q8KBlock> xk(static_cast<size_t>(k / 256));
        const auto block_scale = [&](int64_t i) {
            return double(k_quant ? xk[size_t(i / 256)].d : xq[size_t(i / 32)].d);
        };
        double worst = 0.0;  // largest |error| / allowed
        for (int64_t r = 0; r < m; ++r) {
            quantize_q8_activations(x.data() + r * k, k, xq.data());
            quantize_q8k_activations(x.data() + r * k, k, xk.data());
            for (int64_t j = 0; j < n; ++j) {
                double want = bias[size_t(j)];
                double magnitude = std::fabs(want);
                double rounding = 0.0;
                for (int64_t i = 0; i < k; ++i) {
                    const double product =
                        double(w.decoded[size_t(j * k + i)]) * double(x[size_t(r * k + i)]);
                    want += product;
                    magnitude += std::fabs(product);
                    rounding +=
                        0.5 * block_scale(i) * std::fabs(double(w.decoded[size_t(j * k + i)]));
                }
                const bool few = m <= 8;
                const double allowed =
                    (few && integer_dot ? rounding : 0.0) + 1e-5 * magnitude + 1e-6;
                const double error = std::fabs(double(y[size_t(r * n + j)]) - want);
                ASSERT_LE(error, allowed) << "m " << m << " row " << r << " column " << j;
                worst = std::max(worst, error / allowed);
            }
        }
        EXPECT_GT(worst, 0.0);
    }
}

TEST_P(BlockLinear, ValuesDoNotDependOnTheNumberOfThreads) {
    const GgmlType type = GetParam();
    const int64_t n = 300;
    const int64_t k = 256;
    const QuantizedMatrix w = quantized_matrix(type, n, k);
    for (const int64_t m : {int64_t{1}, int64_t{5}, int64_t{8}}) {
        const std::vector<float> x = normal_values(m * k, 11, 1.0F);
        std::vector<float> one(static_cast<size_t>(m * n));
        ThreadPool single(1);
        linear_blocks(x.data(), w.matrix, nullptr, one.data(), m, k, n, single);
        for (const int threads : {2, 3, 7}) {
            ThreadPool pool(threads);
            std::vector<float> got(one.size());
            linear_blocks(x.data(), w.matrix, nullptr, got.data(), m, k, n, pool);
            EXPECT_EQ(got, one) << threads << " threads, m " << m;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryType, BlockLinear, testing::ValuesIn(kAllTypes), type_name);

TEST(BlockEmbedding, RowsAreDecodedExactlyAndIdsAreChecked) {
    const QuantizedMatrix table = quantized_matrix(GgmlType::q5_1, 12, 64);
    const std::vector<int32_t> ids = {11, 0, 5};
    std::vector<float> y(3 * 64);
    embedding_blocks(ids.data(), table.matrix, y.data(), 3);
    for (size_t i = 0; i < ids.size(); ++i) {
        for (size_t c = 0; c < 64; ++c) {
            ASSERT_EQ(y[i * 64 + c], table.decoded[size_t(ids[i]) * 64 + c]) << i << " " << c;
        }
    }
    const int32_t outside = 12;
    EXPECT_THROW(embedding_blocks(&outside, table.matrix, y.data(), 1), std::out_of_range);
}

TEST(BlockLinearShapes, AProductThatDoesNotFitTheMatrixIsRefused) {
    const QuantizedMatrix w = quantized_matrix(GgmlType::q8_0, 4, 64);
    std::vector<float> x(32), y(4);
    EXPECT_THROW(linear_blocks(x.data(), w.matrix, nullptr, y.data(), 1, 32, 4), std::logic_error);
}

}  // namespace
}  // namespace earshot::backend::cpu
