// The ggml type table (ids, names, block layouts), the decoding of the legacy 32-value blocks
// q4_0, q4_1, q5_0, q5_1 and q8_0 (the 256-value k-quant blocks are in ggml_k_quants.cpp) and the
// check of every block's f16 scales.
#include "earshot/engine/checkpoint/ggml_blocks.h"

#include <array>
#include <cstring>
#include <stdexcept>

#include "earshot/base/half_float.h"
#include "ggml_k_quants.h"

namespace earshot::checkpoint {
namespace {

struct TypeEntry {
    GgmlType type;
    std::string_view name;
    GgmlBlockLayout layout;
};

// Block layouts from ggml-common.h: QK4_0 = QK4_1 = QK5_0 = QK5_1 = QK8_0 = 32 values with a f16
// scale d (and a f16 min m for the _1 types); QK_K = 256 values for the k-quants.
constexpr std::array<TypeEntry, 12> type_table = {{
    {GgmlType::f32, "f32", {1, 4}},
    {GgmlType::f16, "f16", {1, 2}},
    {GgmlType::q4_0, "q4_0", {32, 18}},    // d, qs[16]
    {GgmlType::q4_1, "q4_1", {32, 20}},    // d, m, qs[16]
    {GgmlType::q5_0, "q5_0", {32, 22}},    // d, qh[4], qs[16]
    {GgmlType::q5_1, "q5_1", {32, 24}},    // d, m, qh[4], qs[16]
    {GgmlType::q8_0, "q8_0", {32, 34}},    // d, qs[32]
    {GgmlType::q2_k, "q2_k", {256, 84}},   // scales[16], qs[64], d, dmin
    {GgmlType::q3_k, "q3_k", {256, 110}},  // hmask[32], qs[64], scales[12], d
    {GgmlType::q4_k, "q4_k", {256, 144}},  // d, dmin, scales[12], qs[128]
    {GgmlType::q5_k, "q5_k", {256, 176}},  // d, dmin, scales[12], qh[32], qs[128]
    {GgmlType::q6_k, "q6_k", {256, 210}},  // ql[128], qh[64], scales[16], d
}};

const TypeEntry& entry_of(GgmlType type) {
    for (const auto& entry : type_table) {
        if (entry.type == type) return entry;
    }
    throw std::invalid_argument("not a ggml type Earshot reads: " +
                                std::to_string(static_cast<int32_t>(type)));
}

// ggml.h's names of the ids Earshot does not read, for messages (ggml_type_name there).
constexpr std::array<std::pair<int32_t, std::string_view>, 22> other_type_names = {{
    {4, "q4_2, removed from ggml"},
    {5, "q4_3, removed from ggml"},
    {9, "q8_1"},
    {15, "q8_k"},
    {16, "iq2_xxs"},
    {17, "iq2_xs"},
    {18, "iq3_xxs"},
    {19, "iq1_s"},
    {20, "iq4_nl"},
    {21, "iq3_s"},
    {22, "iq2_s"},
    {23, "iq4_xs"},
    {24, "i8"},
    {25, "i16"},
    {26, "i32"},
    {27, "i64"},
    {28, "f64"},
    {29, "iq1_m"},
    {30, "bf16"},
    {34, "tq1_0"},
    {35, "tq2_0"},
    {39, "mxfp4"},
}};

float read_f16(const std::byte* at) {
    uint16_t bits = 0;
    std::memcpy(&bits, at, sizeof(bits));
    return base::f16_to_f32(bits);
}

// q4_0 [18 bytes]: d | qs[16]. Value j (0..15) is the low nibble of qs[j], value j + 16 its high
// nibble; both minus 8, times d.
void q4_0_block(const std::byte* b, float* y) {
    const float d = read_f16(b);
    const auto* qs = reinterpret_cast<const uint8_t*>(b + 2);
    for (int j = 0; j < 16; ++j) {
        y[j] = d * static_cast<float>((qs[j] & 0x0f) - 8);
        y[j + 16] = d * static_cast<float>((qs[j] >> 4) - 8);
    }
}

// q4_1 [20 bytes]: d | m | qs[16]. Nibbles as q4_0, unsigned: value = nibble * d + m.
void q4_1_block(const std::byte* b, float* y) {
    const float d = read_f16(b);
    const float m = read_f16(b + 2);
    const auto* qs = reinterpret_cast<const uint8_t*>(b + 4);
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>(qs[j] & 0x0f) * d + m;
        y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
    }
}

// The 32 fifth bits of a q5 block: bit j of the little-endian u32 qh belongs to value j.
uint32_t read_u32(const std::byte* at) {
    const auto* p = reinterpret_cast<const uint8_t*>(at);
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

int q5_value(const uint8_t* qs, uint32_t qh, int j) {
    const int nibble = j < 16 ? (qs[j] & 0x0f) : (qs[j - 16] >> 4);
    return nibble | static_cast<int>((qh >> j) & 1u) << 4;
}

// q5_0 [22 bytes]: d | qh[4] | qs[16]. 5-bit value (nibble | bit j of qh << 4) minus 16, times d.
void q5_0_block(const std::byte* b, float* y) {
    const float d = read_f16(b);
    const uint32_t qh = read_u32(b + 2);
    const auto* qs = reinterpret_cast<const uint8_t*>(b + 6);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(q5_value(qs, qh, j) - 16);
}

// q5_1 [24 bytes]: d | m | qh[4] | qs[16]. Unsigned 5-bit value * d + m.
void q5_1_block(const std::byte* b, float* y) {
    const float d = read_f16(b);
    const float m = read_f16(b + 2);
    const uint32_t qh = read_u32(b + 4);
    const auto* qs = reinterpret_cast<const uint8_t*>(b + 8);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(q5_value(qs, qh, j)) * d + m;
}

// q8_0 [34 bytes]: d | qs[32] int8. value = qs[j] * d.
void q8_0_block(const std::byte* b, float* y) {
    const float d = read_f16(b);
    const auto* qs = reinterpret_cast<const uint8_t*>(b + 2);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(static_cast<int8_t>(qs[j]));
}

using BlockDecoder = void (*)(const std::byte*, float*);

BlockDecoder decoder_of(GgmlType type) {
    switch (type) {
        case GgmlType::q4_0:
            return q4_0_block;
        case GgmlType::q4_1:
            return q4_1_block;
        case GgmlType::q5_0:
            return q5_0_block;
        case GgmlType::q5_1:
            return q5_1_block;
        case GgmlType::q8_0:
            return q8_0_block;
        case GgmlType::q2_k:
            return dequantize_q2_k_block;
        case GgmlType::q3_k:
            return dequantize_q3_k_block;
        case GgmlType::q4_k:
            return dequantize_q4_k_block;
        case GgmlType::q5_k:
            return dequantize_q5_k_block;
        case GgmlType::q6_k:
            return dequantize_q6_k_block;
        case GgmlType::f32:
        case GgmlType::f16:
            break;
    }
    return nullptr;
}

// Byte offsets of a block's f16 scales (ggml-common.h): d, and m or dmin where the type has one
// (-1: none).
struct ScaleOffsets {
    int d = 0;
    int second = -1;
};

ScaleOffsets scale_offsets_of(GgmlType type) {
    switch (type) {
        case GgmlType::q4_1:
        case GgmlType::q5_1:
        case GgmlType::q4_k:
        case GgmlType::q5_k:
            return {0, 2};
        case GgmlType::q2_k:
            return {80, 82};  // after scales[16] and qs[64]
        case GgmlType::q3_k:
            return {108, -1};  // after hmask[32], qs[64] and scales[12]
        case GgmlType::q6_k:
            return {208, -1};  // after ql[128], qh[64] and scales[16]
        case GgmlType::q4_0:
        case GgmlType::q5_0:
        case GgmlType::q8_0:
        case GgmlType::f32:
        case GgmlType::f16:
            break;
    }
    return {0, -1};
}

bool finite_f16(const std::byte* at) {
    uint16_t bits = 0;
    std::memcpy(&bits, at, sizeof(bits));
    return (bits & 0x7c00) != 0x7c00;  // all five exponent bits set: an infinity or a NaN
}

}  // namespace

std::optional<GgmlType> ggml_type_from_id(int32_t id) {
    for (const auto& entry : type_table) {
        if (static_cast<int32_t>(entry.type) == id) return entry.type;
    }
    return std::nullopt;
}

GgmlBlockLayout ggml_block_layout(GgmlType type) { return entry_of(type).layout; }

bool is_quantized(GgmlType type) { return type != GgmlType::f32 && type != GgmlType::f16; }

std::string_view ggml_type_name(GgmlType type) {
    for (const auto& entry : type_table) {
        if (entry.type == type) return entry.name;
    }
    return "unknown";
}

std::string_view ggml_type_name_of_id(int32_t id) {
    if (const auto type = ggml_type_from_id(id)) return ggml_type_name(*type);
    for (const auto& [other, name] : other_type_names) {
        if (other == id) return name;
    }
    return "unknown";
}

std::string supported_ggml_type_names() {
    std::string names;
    for (const auto& entry : type_table) {
        if (!names.empty()) names += ", ";
        names += entry.name;
    }
    return names;
}

void dequantize_ggml_blocks(GgmlType type, std::span<const std::byte> blocks,
                            std::span<float> out) {
    const BlockDecoder decode = decoder_of(type);
    if (decode == nullptr) {
        throw std::invalid_argument("dequantize_ggml_blocks: " + std::string(ggml_type_name(type)) +
                                    " is not a quantized type");
    }
    const GgmlBlockLayout layout = entry_of(type).layout;
    const uint64_t count = blocks.size() / layout.bytes;
    if (blocks.size() % layout.bytes != 0 || out.size() != count * layout.elements) {
        throw std::invalid_argument("dequantize_ggml_blocks: " + std::string(ggml_type_name(type)) +
                                    " blocks of " + std::to_string(layout.bytes) + " bytes in " +
                                    std::to_string(blocks.size()) + " bytes cannot fill " +
                                    std::to_string(out.size()) + " values");
    }
    for (uint64_t i = 0; i < count; ++i) {
        decode(blocks.data() + i * layout.bytes, out.data() + i * layout.elements);
    }
}

int64_t first_block_with_non_finite_scale(GgmlType type, std::span<const std::byte> blocks) {
    if (!is_quantized(type)) {
        throw std::invalid_argument("first_block_with_non_finite_scale: " +
                                    std::string(ggml_type_name(type)) + " is not a quantized type");
    }
    const GgmlBlockLayout layout = entry_of(type).layout;
    if (blocks.size() % layout.bytes != 0) {
        throw std::invalid_argument(
            "first_block_with_non_finite_scale: " + std::to_string(blocks.size()) +
            " bytes are not whole " + std::string(ggml_type_name(type)) + " blocks");
    }
    const ScaleOffsets offsets = scale_offsets_of(type);
    const uint64_t count = blocks.size() / layout.bytes;
    for (uint64_t i = 0; i < count; ++i) {
        const std::byte* block = blocks.data() + i * layout.bytes;
        const bool finite = finite_f16(block + offsets.d) &&
                            (offsets.second < 0 || finite_f16(block + offsets.second));
        if (!finite) return static_cast<int64_t>(i);
    }
    return -1;
}

}  // namespace earshot::checkpoint
