// The engine's ggml block quantizers (ggml_quantize.h) and container writer (ggml_writer.h): block
// bytes worked out by hand from ggml's published layouts and rounding rules, the error of a round
// trip through the reader's decoder on random data against each type's bound (in double), and a
// written container read back by the ggml reader.
#include "earshot/engine/checkpoint/ggml_quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/ggml_writer.h"

namespace earshot::checkpoint {
namespace {

// One block: `head` values, then `fill` up to 32.
std::vector<float> block_of(std::vector<float> head, float fill) {
    head.resize(32, fill);
    return head;
}

std::vector<uint8_t> bytes_of(GgmlType type, const std::vector<float>& values) {
    const std::vector<std::byte> out = quantize_ggml_blocks(type, values);
    std::vector<uint8_t> bytes(out.size());
    std::transform(out.begin(), out.end(), bytes.begin(),
                   [](std::byte b) { return static_cast<uint8_t>(b); });
    return bytes;
}

// f16 bits: 0x3c00 = 1.0, 0xbc00 = -1.0, stored little-endian (00 3c).
TEST(GgmlQuantize, Q8_0BlockBytesByHand) {
    // amax 127 -> d = 1; round half away from zero: -2.5 -> -3.
    const auto b =
        bytes_of(GgmlType::q8_0, block_of({127.0f, -127.0f, 3.4f, -2.5f, 0.0f, 1.0f}, 0));
    std::vector<uint8_t> expected = {0x00, 0x3c, 0x7f, 0x81, 0x03, 0xfd, 0x00, 0x01};
    expected.resize(34, 0x00);
    EXPECT_EQ(b, expected);
}

TEST(GgmlQuantize, Q4_0BlockBytesByHand) {
    // The extreme is -8 -> d = -8 / -8 = 1; q = trunc(x + 8.5) in 0..15: -8 -> 0, 7 -> 15,
    // 0.4 -> 8, -0.6 -> 7, 3 -> 11, 0 -> 8. Value j in the low nibble of qs[j] (j < 16).
    const auto b = bytes_of(GgmlType::q4_0, block_of({-8.0f, 7.0f, 0.4f, -0.6f, 3.0f}, 0));
    std::vector<uint8_t> expected = {0x00, 0x3c, 0x80, 0x8f, 0x88, 0x87, 0x8b};
    expected.resize(18, 0x88);
    EXPECT_EQ(b, expected);
}

TEST(GgmlQuantize, Q5_0BlockBytesByHand) {
    // d = -16 / -16 = 1; q = trunc(x + 16.5): 0, 31, 16, 15, 19, then 16. Bit 4 of value j in bit
    // j of qh: set for every value but 0 and 3 -> 0xfffffff6.
    const auto b = bytes_of(GgmlType::q5_0, block_of({-16.0f, 15.0f, 0.4f, -0.6f, 3.0f}, 0));
    std::vector<uint8_t> expected = {0x00, 0x3c, 0xf6, 0xff, 0xff, 0xff,
                                     0x00, 0x0f, 0x00, 0x0f, 0x03};
    expected.resize(22, 0x00);
    EXPECT_EQ(b, expected);
}

TEST(GgmlQuantize, Q4_1BlockBytesByHand) {
    // min 0, max 15 -> d = 1, m = 0; q = round(x - m): 0, 15, 7, 8, 1, then 0.
    const auto b = bytes_of(GgmlType::q4_1, block_of({0.0f, 15.0f, 7.4f, 7.6f, 1.0f}, 0));
    std::vector<uint8_t> expected = {0x00, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x07, 0x08, 0x01};
    expected.resize(20, 0x00);
    EXPECT_EQ(b, expected);
}

TEST(GgmlQuantize, Q5_1BlockBytesByHand) {
    // min -1, max 30 -> d = 31 / 31 = 1, m = -1 (0xbc00); q: 0, 31, 1, then 0; qh bit 1.
    const auto b = bytes_of(GgmlType::q5_1, block_of({-1.0f, 30.0f, 0.0f}, -1.0f));
    std::vector<uint8_t> expected = {0x00, 0x3c, 0x00, 0xbc, 0x02, 0x00,
                                     0x00, 0x00, 0x00, 0x0f, 0x01};
    expected.resize(24, 0x00);
    EXPECT_EQ(b, expected);
}

TEST(GgmlQuantize, AllZeroBlockIsZeroScaleAndMiddleLevel) {
    const auto b = bytes_of(GgmlType::q8_0, std::vector<float>(32, 0.0f));
    EXPECT_EQ(b, std::vector<uint8_t>(34, 0x00));
    std::vector<float> decoded(32, 1.0f);
    dequantize_ggml_blocks(GgmlType::q4_0,
                           quantize_ggml_blocks(GgmlType::q4_0, std::vector<float>(32, 0.0f)),
                           decoded);
    EXPECT_EQ(decoded, std::vector<float>(32, 0.0f));
}

class GgmlQuantizeRoundTrip : public ::testing::TestWithParam<GgmlType> {};

// 256 blocks of normal values with a per-block scale from 0.03 to 1000 (d a normal f16): every
// decoded value within the type's bound times its block's largest |x|, the error measured in
// double.
TEST_P(GgmlQuantizeRoundTrip, DecodedValuesWithinTheBound) {
    const GgmlType type = GetParam();
    std::mt19937 rng(34);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> log_scale(-1.5f, 3.0f);
    constexpr std::size_t blocks = 256;
    std::vector<float> values(32 * blocks);
    for (std::size_t i = 0; i < blocks; ++i) {
        const float scale = std::pow(10.0f, log_scale(rng));
        const float shift = (i % 3 == 0) ? scale : 0.0f;  // some blocks far from symmetric
        for (std::size_t j = 0; j < 32; ++j) values[32 * i + j] = normal(rng) * scale + shift;
    }
    const std::vector<std::byte> blocks_bytes = quantize_ggml_blocks(type, values);
    ASSERT_EQ(blocks_bytes.size(), blocks * ggml_block_layout(type).bytes);
    std::vector<float> decoded(values.size());
    dequantize_ggml_blocks(type, blocks_bytes, decoded);
    const double bound = ggml_quantize_error_bound(type);
    ASSERT_GT(bound, 0.0);
    double worst = 0.0;
    for (std::size_t i = 0; i < blocks; ++i) {
        double amax = 0.0;
        for (std::size_t j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(double{values[32 * i + j]}));
        for (std::size_t j = 0; j < 32; ++j) {
            const double error =
                std::fabs(double{values[32 * i + j]} - double{decoded[32 * i + j]}) / amax;
            worst = std::max(worst, error);
            ASSERT_LE(error, bound) << ggml_type_name(type) << " block " << i << " value " << j;
        }
    }
    // The bound is not loose: random data reaches at least a third of it.
    EXPECT_GT(worst, bound / 3.0) << ggml_type_name(type);
}

INSTANTIATE_TEST_SUITE_P(Types, GgmlQuantizeRoundTrip,
                         ::testing::Values(GgmlType::q8_0, GgmlType::q5_0, GgmlType::q5_1,
                                           GgmlType::q4_0, GgmlType::q4_1),
                         [](const ::testing::TestParamInfo<GgmlType>& param_info) {
                             return std::string(ggml_type_name(param_info.param));
                         });

TEST(GgmlQuantize, RefusesOtherTypesAndPartialBlocks) {
    EXPECT_FALSE(can_quantize_to(GgmlType::q4_k));
    EXPECT_FALSE(can_quantize_to(GgmlType::f16));
    EXPECT_TRUE(can_quantize_to(GgmlType::q5_1));
    EXPECT_THROW(quantize_ggml_blocks(GgmlType::q6_k, std::vector<float>(256)),
                 std::invalid_argument);
    EXPECT_THROW(quantize_ggml_blocks(GgmlType::q8_0, std::vector<float>(48)),
                 std::invalid_argument);
}

TEST(GgmlWriter, TensorTypesAsWhisperCpp) {
    const GgmlType q = GgmlType::q5_0;
    EXPECT_EQ(whisper_cpp_tensor_type("encoder.blocks.0.attn.query.weight", {64, 64}, q), q);
    EXPECT_EQ(whisper_cpp_tensor_type("decoder.token_embedding.weight", {64, 51864}, q), q);
    EXPECT_EQ(whisper_cpp_tensor_type("encoder.conv1.weight", {3, 80, 64}, q), GgmlType::f16);
    EXPECT_EQ(whisper_cpp_tensor_type("encoder.conv1.bias", {1, 64}, q), GgmlType::f32);
    EXPECT_EQ(whisper_cpp_tensor_type("encoder.positional_embedding", {64, 300}, q), GgmlType::f32);
    EXPECT_EQ(whisper_cpp_tensor_type("decoder.positional_embedding", {64, 448}, q), GgmlType::f32);
    EXPECT_EQ(whisper_cpp_tensor_type("decoder.ln.weight", {64}, q), GgmlType::f32);
    EXPECT_EQ(whisper_cpp_tensor_type("encoder.conv1.weight", {3, 80, 64}, GgmlType::f32),
              GgmlType::f32);
    EXPECT_EQ(ggml_ne_of("encoder.conv2.bias", {64}), (std::vector<int64_t>{1, 64}));
    EXPECT_EQ(ggml_ne_of("encoder.conv2.weight", {64, 64, 3}), (std::vector<int64_t>{3, 64, 64}));
    EXPECT_EQ(openai_name_of_hf("model.encoder.layers.1.self_attn.q_proj.weight"),
              "encoder.blocks.1.attn.query.weight");
    EXPECT_EQ(openai_name_of_hf("decoder.blocks.0.cross_attn_ln.bias"),
              "decoder.blocks.0.cross_attn_ln.bias");
    EXPECT_EQ(ggml_ftype_of(GgmlType::q8_0), 2007);
}

TEST(GgmlWriter, WrittenContainerReadsBack) {
    GgmlContents c;
    c.hparams.n_vocab = 3;
    c.hparams.n_mels = 2;
    c.hparams.ftype = ggml_ftype_of(GgmlType::q8_0);
    c.mel_count = 2;
    c.mel_bins = 3;
    c.mel_filters = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f};
    c.vocab = {"a", "", "bc"};
    std::vector<float> row(64);
    for (std::size_t i = 0; i < row.size(); ++i) row[i] = static_cast<float>(i) / 8.0f - 4.0f;
    c.tensors.push_back(
        {"decoder.ln.weight", GgmlType::q8_0, {64, 1}, quantize_ggml_blocks(GgmlType::q8_0, row)});
    const std::vector<char> bytes = ggml_file_bytes(c);
    const GgmlFile f = parse_ggml_file(std::as_bytes(std::span(bytes)), "written");
    EXPECT_EQ(f.hparams.ftype, 2007);
    EXPECT_EQ(f.hparams.n_vocab, 3);
    EXPECT_EQ(f.mel_filters, c.mel_filters);
    EXPECT_EQ(f.vocab, c.vocab);
    ASSERT_EQ(f.tensors.size(), 1u);
    EXPECT_EQ(f.tensors[0].name, "decoder.ln.weight");
    EXPECT_EQ(f.tensors[0].ttype, GgmlType::q8_0);
    EXPECT_EQ(f.tensors[0].ne, (std::vector<int64_t>{64, 1}));
    EXPECT_EQ(f.tensors[0].size_bytes, 2u * 34u);
    EXPECT_EQ(f.tensors[0].data_offset_bytes + f.tensors[0].size_bytes, bytes.size());
}

}  // namespace
}  // namespace earshot::checkpoint
