// The scalar reference of the block dot products (block_dot.h): the block layouts spelled out one
// value at a time, as ggml-common.h stores them.
#include <cstring>

#include "backend/cpu/quant/block_dot.h"
#include "earshot/base/half_float.h"

namespace earshot::backend::cpu {

namespace {

using checkpoint::GgmlType;

float read_f16(const std::byte* at) {
    uint16_t bits = 0;
    std::memcpy(&bits, at, sizeof(bits));
    return base::f16_to_f32(bits);
}

uint32_t read_u32(const std::byte* at) {
    uint32_t value = 0;
    std::memcpy(&value, at, sizeof(value));  // little-endian, as the file stores it
    return value;
}

// Level j (0..31) of 16 bytes of nibbles: j < 16 the low nibble of byte j, else the high nibble
// of byte j - 16.
int nibble(const std::byte* qs, int j) {
    const auto byte = static_cast<uint8_t>(qs[j & 15]);
    return j < 16 ? byte & 0x0f : byte >> 4;
}

// q8_0 [34 bytes]: d | qs[32] int8.
float dot_q8_0(const std::byte* w, const Q8Block* x, int64_t blocks) {
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b, w += 34) {
        int32_t levels = 0;
        for (int j = 0; j < 32; ++j) {
            levels += static_cast<int8_t>(static_cast<uint8_t>(w[2 + j])) * x[b].qs[j];
        }
        sum += read_f16(w) * x[b].d * static_cast<float>(levels);
    }
    return sum;
}

// q4_0 [18 bytes]: d | qs[16]; level nibble - 8.
float dot_q4_0(const std::byte* w, const Q8Block* x, int64_t blocks) {
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b, w += 18) {
        int32_t levels = 0;
        for (int j = 0; j < 32; ++j) levels += (nibble(w + 2, j) - 8) * x[b].qs[j];
        sum += read_f16(w) * x[b].d * static_cast<float>(levels);
    }
    return sum;
}

// q4_1 [20 bytes]: d | m | qs[16]; value nibble d + m.
float dot_q4_1(const std::byte* w, const Q8Block* x, int64_t blocks) {
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b, w += 20) {
        int32_t levels = 0;
        for (int j = 0; j < 32; ++j) levels += nibble(w + 4, j) * x[b].qs[j];
        sum += read_f16(w) * x[b].d * static_cast<float>(levels) + read_f16(w + 2) * x[b].sum;
    }
    return sum;
}

// q5_0 [22 bytes]: d | qh[4] | qs[16]; level (nibble | bit j of qh << 4) - 16.
float dot_q5_0(const std::byte* w, const Q8Block* x, int64_t blocks) {
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b, w += 22) {
        const uint32_t qh = read_u32(w + 2);
        int32_t levels = 0;
        for (int j = 0; j < 32; ++j) {
            const int level = nibble(w + 6, j) | static_cast<int>((qh >> j) & 1U) << 4;
            levels += (level - 16) * x[b].qs[j];
        }
        sum += read_f16(w) * x[b].d * static_cast<float>(levels);
    }
    return sum;
}

// q5_1 [24 bytes]: d | m | qh[4] | qs[16]; value (nibble | bit j of qh << 4) d + m.
float dot_q5_1(const std::byte* w, const Q8Block* x, int64_t blocks) {
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b, w += 24) {
        const uint32_t qh = read_u32(w + 4);
        int32_t levels = 0;
        for (int j = 0; j < 32; ++j) {
            const int level = nibble(w + 8, j) | static_cast<int>((qh >> j) & 1U) << 4;
            levels += level * x[b].qs[j];
        }
        sum += read_f16(w) * x[b].d * static_cast<float>(levels) + read_f16(w + 2) * x[b].sum;
    }
    return sum;
}

// The rows one after another, each with its own BlockDot.
template <BlockDot kDot>
void dot_each_row(const std::byte* w, const Q8Block* x, int64_t x_stride, int rows, int64_t blocks,
                  float* out) {
    for (int r = 0; r < rows; ++r) out[r] = kDot(w, x + r * x_stride, blocks);
}

}  // namespace

BlockDotRows reference_block_dot_rows(GgmlType type) {
    switch (type) {
        case GgmlType::q8_0:
            return dot_each_row<dot_q8_0>;
        case GgmlType::q4_0:
            return dot_each_row<dot_q4_0>;
        case GgmlType::q4_1:
            return dot_each_row<dot_q4_1>;
        case GgmlType::q5_0:
            return dot_each_row<dot_q5_0>;
        case GgmlType::q5_1:
            return dot_each_row<dot_q5_1>;
        default:
            return nullptr;
    }
}

BlockDot reference_block_dot(GgmlType type) {
    switch (type) {
        case GgmlType::q8_0:
            return dot_q8_0;
        case GgmlType::q4_0:
            return dot_q4_0;
        case GgmlType::q4_1:
            return dot_q4_1;
        case GgmlType::q5_0:
            return dot_q5_0;
        case GgmlType::q5_1:
            return dot_q5_1;
        default:
            return nullptr;
    }
}

bool has_block_dot(GgmlType type) { return reference_block_dot(type) != nullptr; }

}  // namespace earshot::backend::cpu
