// ggml quantized blocks decoded against values worked out by hand from the published block layouts
// (ggml-common.h): one block of each type with its bytes written out, and the expected floats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::checkpoint {
namespace {

// f16 bits used below: 0x3000 = 0.125, 0x3400 = 0.25, 0x3800 = 0.5, 0x3c00 = 1.0,
// 0x4000 = 2.0, 0xbc00 = -1.0 (stored little-endian: 0x3800 is the bytes 00 38).
void put_f16(std::vector<uint8_t>& b, uint16_t bits) {
    b.push_back(static_cast<uint8_t>(bits & 0xff));
    b.push_back(static_cast<uint8_t>(bits >> 8));
}

std::vector<float> decode(GgmlType type, const std::vector<uint8_t>& block) {
    const GgmlBlockLayout layout = ggml_block_layout(type);
    EXPECT_EQ(block.size(), layout.bytes) << ggml_type_name(type);
    std::vector<float> out(layout.elements);
    dequantize_ggml_blocks(type, std::as_bytes(std::span(block)), out);
    return out;
}

// qs[j] = j | (15 - j) << 4: low nibbles 0..15, high nibbles 15..0 (bytes f0 e1 d2 .. 0f).
void put_ramp_nibbles(std::vector<uint8_t>& b) {
    for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | (15 - j) << 4));
}

TEST(GgmlQuantBlocks, LayoutsAreGgmls) {
    const std::map<GgmlType, std::pair<uint64_t, uint64_t>> expected = {
        {GgmlType::q4_0, {32, 18}},   {GgmlType::q4_1, {32, 20}},   {GgmlType::q5_0, {32, 22}},
        {GgmlType::q5_1, {32, 24}},   {GgmlType::q8_0, {32, 34}},   {GgmlType::q2_k, {256, 84}},
        {GgmlType::q3_k, {256, 110}}, {GgmlType::q4_k, {256, 144}}, {GgmlType::q5_k, {256, 176}},
        {GgmlType::q6_k, {256, 210}}};
    for (const auto& [type, layout] : expected) {
        EXPECT_EQ(ggml_block_layout(type).elements, layout.first) << ggml_type_name(type);
        EXPECT_EQ(ggml_block_layout(type).bytes, layout.second) << ggml_type_name(type);
        EXPECT_TRUE(is_quantized(type));
        EXPECT_EQ(ggml_type_from_id(static_cast<int32_t>(type)), type);
    }
    EXPECT_FALSE(ggml_type_from_id(9).has_value());  // q8_1: not in whisper.cpp files
    EXPECT_EQ(ggml_type_name_of_id(9), "q8_1");
    EXPECT_EQ(ggml_type_name_of_id(30), "bf16");
    EXPECT_EQ(ggml_type_name_of_id(14), "q6_k");
}

TEST(GgmlQuantBlocks, Q4_0) {
    // d = 0.5, value = d * (nibble - 8): low nibbles j -> 0.5 (j - 8) = -4 .. 3.5, then high
    // nibbles 15 - j -> 0.5 (7 - j) = 3.5 .. -4.
    std::vector<uint8_t> b;
    put_f16(b, 0x3800);
    put_ramp_nibbles(b);
    const std::vector<float> want = {-4,  -3.5, -3,   -2.5, -2,   -1.5, -1,   -0.5, 0,    0.5, 1,
                                     1.5, 2,    2.5,  3,    3.5,  3.5,  3,    2.5,  2,    1.5, 1,
                                     0.5, 0,    -0.5, -1,   -1.5, -2,   -2.5, -3,   -3.5, -4};
    EXPECT_EQ(decode(GgmlType::q4_0, b), want);
}

TEST(GgmlQuantBlocks, Q4_1) {
    // d = 0.25, m = -1: value = 0.25 * nibble - 1 -> -1 .. 2.75, then 2.75 .. -1.
    std::vector<uint8_t> b;
    put_f16(b, 0x3400);
    put_f16(b, 0xbc00);
    put_ramp_nibbles(b);
    const std::vector<float> want = {-1,   -0.75, -0.5, -0.25, 0,     0.25, 0.5,   0.75,
                                     1,    1.25,  1.5,  1.75,  2,     2.25, 2.5,   2.75,
                                     2.75, 2.5,   2.25, 2,     1.75,  1.5,  1.25,  1,
                                     0.75, 0.5,   0.25, 0,     -0.25, -0.5, -0.75, -1};
    EXPECT_EQ(decode(GgmlType::q4_1, b), want);
}

TEST(GgmlQuantBlocks, Q5_0) {
    // d = 1, qh = 0x0000ffff (bytes ff ff 00 00): values 0..15 get bit 4 (+16), 16..31 do not.
    // value = (nibble + 16 bit) - 16: j + 16 - 16 = j -> 0 .. 15; (15 - j) - 16 -> -1 .. -16.
    std::vector<uint8_t> b;
    put_f16(b, 0x3c00);
    for (const int byte : {0xff, 0xff, 0x00, 0x00}) b.push_back(static_cast<uint8_t>(byte));
    put_ramp_nibbles(b);
    std::vector<float> want;
    for (int j = 0; j < 16; ++j) want.push_back(static_cast<float>(j));
    for (int j = 0; j < 16; ++j) want.push_back(static_cast<float>(-1 - j));
    EXPECT_EQ(decode(GgmlType::q5_0, b), want);
}

TEST(GgmlQuantBlocks, Q5_1) {
    // d = 0.5, m = 2, qh = 0x80000001 (bytes 01 00 00 80): bit 4 only on values 0 and 31.
    // value 0: (0 + 16) * 0.5 + 2 = 10; 1..15: 0.5 j + 2 = 2.5 .. 9.5;
    // 16..30: 0.5 (15 - j) + 2 = 9.5 .. 2.5; value 31: (0 + 16) * 0.5 + 2 = 10.
    std::vector<uint8_t> b;
    put_f16(b, 0x3800);
    put_f16(b, 0x4000);
    for (const int byte : {0x01, 0x00, 0x00, 0x80}) b.push_back(static_cast<uint8_t>(byte));
    put_ramp_nibbles(b);
    const std::vector<float> want = {10,  2.5, 3,   3.5, 4,   4.5, 5,   5.5, 6,   6.5, 7,
                                     7.5, 8,   8.5, 9,   9.5, 9.5, 9,   8.5, 8,   7.5, 7,
                                     6.5, 6,   5.5, 5,   4.5, 4,   3.5, 3,   2.5, 10};
    EXPECT_EQ(decode(GgmlType::q5_1, b), want);
}

TEST(GgmlQuantBlocks, Q8_0) {
    // d = 0.125, qs[j] = 8 j - 128 as int8 (bytes 80 88 90 .. 78): value = j - 16 -> -16 .. 15.
    std::vector<uint8_t> b;
    put_f16(b, 0x3000);
    for (int j = 0; j < 32; ++j) b.push_back(static_cast<uint8_t>(8 * j - 128));
    std::vector<float> want;
    for (int j = 0; j < 32; ++j) want.push_back(static_cast<float>(j - 16));
    EXPECT_EQ(decode(GgmlType::q8_0, b), want);
}

TEST(GgmlQuantBlocks, Q2_K) {
    // scales[s] = (s % 4 + 1) | (s / 4) << 4: sub-block s (16 values) has sc = s % 4 + 1 and
    // mn = s / 4. qs[0..31] = 0xe4 (2-bit fields at shifts 0, 2, 4, 6 = 0, 1, 2, 3), qs[32..63] =
    // 0x1b (3, 2, 1, 0). d = 0.5, dmin = 1. Value v: q = field at shift 2 ((v % 128) / 32) of
    // qs[32 (v / 128) + v % 32]; y = 0.5 sc q - mn.
    std::vector<uint8_t> b;
    for (int s = 0; s < 16; ++s) b.push_back(static_cast<uint8_t>((s % 4 + 1) | (s / 4) << 4));
    for (int i = 0; i < 64; ++i) b.push_back(i < 32 ? 0xe4 : 0x1b);
    put_f16(b, 0x3800);
    put_f16(b, 0x3c00);
    const std::vector<float> y = decode(GgmlType::q2_k, b);
    EXPECT_EQ(y[0], 0.0f);     // s 0 (sc 1, mn 0), qs[0] shift 0 -> 0: 0
    EXPECT_EQ(y[40], 1.5f);    // s 2 (sc 3, mn 0), qs[8] shift 2 -> 1: 0.5 * 3 * 1 = 1.5
    EXPECT_EQ(y[63], 2.0f);    // s 3 (sc 4, mn 0), qs[31] shift 2 -> 1: 0.5 * 4 = 2
    EXPECT_EQ(y[100], 3.5f);   // s 6 (sc 3, mn 1), qs[4] shift 6 -> 3: 4.5 - 1 = 3.5
    EXPECT_EQ(y[130], -0.5f);  // s 8 (sc 1, mn 2), qs[34] shift 0 -> 3: 1.5 - 2 = -0.5
    EXPECT_EQ(y[200], -2.5f);  // s 12 (sc 1, mn 3), qs[40] shift 4 -> 1: 0.5 - 3 = -2.5
    EXPECT_EQ(y[255], -3.0f);  // s 15 (sc 4, mn 3), qs[63] shift 6 -> 0: 0 - 3 = -3
}

TEST(GgmlQuantBlocks, Q3_K) {
    // 6-bit scales u_i = i + 24 (scale i - 8 after the -32): packed[k] = low4(u_k) |
    // low4(u_{k+8}) << 4 = (k + 8) | k << 4 for k = 0..7 (08 19 2a 3b 4c 5d 6e 7f); packed[8..11]
    // hold the top two bits of u_r, u_{4+r}, u_{8+r}, u_{12+r} at 0, 2, 4, 6 = 1, 1, 2, 2 -> 0xa5.
    // qs = 0xe4 (low 2 bits 0, 1, 2, 3 at shifts 0, 2, 4, 6); hmask[l] = 0x0f for l < 16, 0xf0
    // after. d = 0.5. Value v: low = (v % 128) / 32, hbit = bit v / 32 of hmask[v % 32],
    // q = low - (hbit ? 0 : 4), y = 0.5 (v / 16 - 8) q.
    std::vector<uint8_t> b;
    for (int l = 0; l < 32; ++l) b.push_back(l < 16 ? 0x0f : 0xf0);
    for (int i = 0; i < 64; ++i) b.push_back(0xe4);
    for (int k = 0; k < 8; ++k) b.push_back(static_cast<uint8_t>((k + 8) | k << 4));
    for (int r = 0; r < 4; ++r) b.push_back(0xa5);
    put_f16(b, 0x3800);
    const std::vector<float> y = decode(GgmlType::q3_k, b);
    EXPECT_EQ(y[16], 14.0f);   // scale -7; low 0, hmask[16] bit 0 clear -> -4: 0.5 * -7 * -4
    EXPECT_EQ(y[40], -3.0f);   // scale -6; low 1, hmask[8] bit 1 set -> 1: 0.5 * -6 * 1
    EXPECT_EQ(y[50], 7.5f);    // scale -5; low 1, hmask[18] bit 1 clear -> -3: 0.5 * -5 * -3
    EXPECT_EQ(y[100], -3.0f);  // scale -2; low 3, hmask[4] bit 3 set -> 3: 0.5 * -2 * 3
    EXPECT_EQ(y[170], -3.0f);  // scale 2; low 1, hmask[10] bit 5 clear -> -3: 0.5 * 2 * -3
    EXPECT_EQ(y[230], -3.0f);  // scale 6; low 3, hmask[6] bit 7 clear -> -1: 0.5 * 6 * -1
    EXPECT_EQ(y[255], 10.5f);  // scale 7; low 3, hmask[31] bit 7 set -> 3: 0.5 * 7 * 3
}

// The q4_k / q5_k header: d = 0.5, dmin = 0.25 and 12 scale bytes giving sub-blocks 0..7
// (sc, mn) = (1, 1), (2, 2), (3, 3), (4, 4), (17, 34), (18, 3), (19, 4), (20, 5):
// s[0..3] = 41 42 43 44 (sc 1..4, top bits 01 -> +16 for sc 4..7); s[4..7] = 81 02 03 04
// (mn 1..4, top bits of s[4] 10 -> +32 for mn 4); s[8..11] = 21 32 43 54 (low nibbles of sc
// 4..7 = 1, 2, 3, 4; high nibbles of mn 4..7 = 2, 3, 4, 5).
void put_k4_header(std::vector<uint8_t>& b) {
    put_f16(b, 0x3800);
    put_f16(b, 0x3400);
    for (const int byte :
         {0x41, 0x42, 0x43, 0x44, 0x81, 0x02, 0x03, 0x04, 0x21, 0x32, 0x43, 0x54}) {
        b.push_back(static_cast<uint8_t>(byte));
    }
}

TEST(GgmlQuantBlocks, Q4_K) {
    // qs[i] = (i % 16) | (15 - i % 16) << 4. Value v: sub-block v / 32, byte 32 (v / 64) + v % 32,
    // low nibble when v % 64 < 32; y = 0.5 sc q - 0.25 mn.
    std::vector<uint8_t> b;
    put_k4_header(b);
    for (int i = 0; i < 128; ++i) b.push_back(static_cast<uint8_t>((i % 16) | (15 - i % 16) << 4));
    const std::vector<float> y = decode(GgmlType::q4_k, b);
    EXPECT_EQ(y[0], -0.25f);     // (1, 1), qs[0] low 0: 0 - 0.25
    EXPECT_EQ(y[5], 2.25f);      // (1, 1), qs[5] low 5: 2.5 - 0.25
    EXPECT_EQ(y[40], 6.5f);      // (2, 2), qs[8] high 7: 7 - 0.5
    EXPECT_EQ(y[70], 8.25f);     // (3, 3), qs[38] low 6: 9 - 0.75
    EXPECT_EQ(y[140], 93.5f);    // (17, 34), qs[76] low 12: 102 - 8.5
    EXPECT_EQ(y[175], -0.75f);   // (18, 3), qs[79] high 0: 0 - 0.75
    EXPECT_EQ(y[200], 75.0f);    // (19, 4), qs[104] low 8: 76 - 1
    EXPECT_EQ(y[225], 138.75f);  // (20, 5), qs[97] high 14: 140 - 1.25
    EXPECT_EQ(y[255], -1.25f);   // (20, 5), qs[127] high 0: 0 - 1.25
}

TEST(GgmlQuantBlocks, Q5_K) {
    // The q4_k header and qs, with qh[l] = 1 << (l % 8): value v (sub-block v / 32, l = v % 32)
    // gets +16 when bit v / 32 of qh[l] is set, i.e. when v / 32 == l % 8.
    std::vector<uint8_t> b;
    put_k4_header(b);
    for (int l = 0; l < 32; ++l) b.push_back(static_cast<uint8_t>(1 << (l % 8)));
    for (int i = 0; i < 128; ++i) b.push_back(static_cast<uint8_t>((i % 16) | (15 - i % 16) << 4));
    const std::vector<float> y = decode(GgmlType::q5_k, b);
    EXPECT_EQ(y[0], 7.75f);      // (1, 1), low 0 + 16 (qh[0] bit 0): 8 - 0.25
    EXPECT_EQ(y[5], 2.25f);      // (1, 1), low 5, qh[5] = 0x20 bit 0 clear: 2.5 - 0.25
    EXPECT_EQ(y[40], 6.5f);      // (2, 2), high 7, qh[8] = 0x01 bit 1 clear: 7 - 0.5
    EXPECT_EQ(y[41], 21.5f);     // (2, 2), high 6 + 16 (qh[9] = 0x02): 22 - 0.5
    EXPECT_EQ(y[140], 229.5f);   // (17, 34), low 12 + 16 (qh[12] = 0x10): 238 - 8.5
    EXPECT_EQ(y[255], 158.75f);  // (20, 5), high 0 + 16 (qh[31] = 0x80): 160 - 1.25
}

TEST(GgmlQuantBlocks, Q6_K) {
    // ql[i] = i (low nibble i % 16, high nibble i / 16); qh[0..31] = 0xe4 (2-bit fields k = 0..3
    // at shifts 2 k: 0, 1, 2, 3), qh[32..63] = 0x1b (3, 2, 1, 0); scales[i] = i - 8; d = 0.25.
    // Value v = 128 n + 32 k + l: nibble of ql[64 n + l + 32 (k % 2)] (low for k < 2), top bits
    // field k of qh[32 n + l], q = (nibble | top << 4) - 32, y = 0.25 scales[8 n + l / 16 + 2 k] q.
    std::vector<uint8_t> b;
    for (int i = 0; i < 128; ++i) b.push_back(static_cast<uint8_t>(i));
    for (int i = 0; i < 64; ++i) b.push_back(i < 32 ? 0xe4 : 0x1b);
    for (int i = 0; i < 16; ++i) b.push_back(static_cast<uint8_t>(static_cast<int8_t>(i - 8)));
    put_f16(b, 0x3400);
    const std::vector<float> y = decode(GgmlType::q6_k, b);
    EXPECT_EQ(y[0], 64.0f);      // ql[0] low 0, top 0 -> -32; scale -8: 0.25 * -8 * -32
    EXPECT_EQ(y[20], 49.0f);     // ql[20] low 4, top 0 -> -28; scale -7: 0.25 * -7 * -28
    EXPECT_EQ(y[45], 4.5f);      // ql[45] low 13, top 1 -> -3; scale -6: 0.25 * -6 * -3
    EXPECT_EQ(y[90], -0.75f);    // ql[26] high 1, top 2 -> 1; scale -3: 0.25 * -3 * 1
    EXPECT_EQ(y[127], -4.75f);   // ql[63] high 3, top 3 -> 19; scale -1: 0.25 * -1 * 19
    EXPECT_EQ(y[150], 5.5f);     // ql[86] low 6, qh[54] top 3 -> 22; scale 1: 0.25 * 22
    EXPECT_EQ(y[200], -12.0f);   // ql[72] high 4, qh[40] top 1 -> -12; scale 4: 0.25 * 4 * -12
    EXPECT_EQ(y[255], -43.75f);  // ql[127] high 7, qh[63] top 0 -> -25; scale 7: 0.25 * 7 * -25
}

TEST(GgmlQuantBlocks, RefusesPartialBlocksAndPlainTypes) {
    std::vector<std::byte> bytes(35);
    std::vector<float> out(32);
    EXPECT_THROW(dequantize_ggml_blocks(GgmlType::q8_0, bytes, out), std::invalid_argument);
    bytes.resize(34);
    out.resize(31);
    EXPECT_THROW(dequantize_ggml_blocks(GgmlType::q8_0, bytes, out), std::invalid_argument);
    out.resize(32);
    EXPECT_NO_THROW(dequantize_ggml_blocks(GgmlType::q8_0, bytes, out));
    EXPECT_THROW(dequantize_ggml_blocks(GgmlType::f16, bytes, out), std::invalid_argument);
}

// Every scale of every type is checked: three zero blocks, then an infinity or a NaN written into
// one scale (d, m or dmin, at its ggml-common.h offset) of the third block.
TEST(GgmlQuantBlocks, FirstBlockWithANonFiniteScale) {
    struct Scale {
        GgmlType type;
        std::size_t offset;
    };
    const std::vector<Scale> scales = {
        {GgmlType::q4_0, 0},  {GgmlType::q4_1, 0},   {GgmlType::q4_1, 2},   {GgmlType::q5_0, 0},
        {GgmlType::q5_1, 0},  {GgmlType::q5_1, 2},   {GgmlType::q8_0, 0},   {GgmlType::q2_k, 80},
        {GgmlType::q2_k, 82}, {GgmlType::q3_k, 108}, {GgmlType::q4_k, 0},   {GgmlType::q4_k, 2},
        {GgmlType::q5_k, 0},  {GgmlType::q5_k, 2},   {GgmlType::q6_k, 208},
    };
    for (const Scale& scale : scales) {
        const std::size_t bytes = ggml_block_layout(scale.type).bytes;
        std::vector<std::byte> blocks(3 * bytes);
        EXPECT_EQ(first_block_with_non_finite_scale(scale.type, blocks), -1);
        for (const uint16_t bits : {uint16_t{0x7c00}, uint16_t{0xfe00}}) {  // +inf, a NaN
            blocks[2 * bytes + scale.offset] = static_cast<std::byte>(bits & 0xff);
            blocks[2 * bytes + scale.offset + 1] = static_cast<std::byte>(bits >> 8);
            EXPECT_EQ(first_block_with_non_finite_scale(scale.type, blocks), 2)
                << ggml_type_name(scale.type) << " offset " << scale.offset;
            // The decoded values of that block are not finite either.
            std::vector<float> values(3 * ggml_block_layout(scale.type).elements);
            dequantize_ggml_blocks(scale.type, blocks, values);
            EXPECT_FALSE(std::isfinite(values[values.size() - 1]));
        }
    }
    EXPECT_THROW(first_block_with_non_finite_scale(GgmlType::q8_0, std::vector<std::byte>(33)),
                 std::invalid_argument);
    EXPECT_THROW(first_block_with_non_finite_scale(GgmlType::f16, std::vector<std::byte>(4)),
                 std::invalid_argument);
}

}  // namespace
}  // namespace earshot::checkpoint
