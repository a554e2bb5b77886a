// ggml's legacy block quantizers (q4_0, q4_1, q5_0, q5_1, q8_0): the block layouts of
// ggml-common.h, filled as ggml-quants.c's quantize_row_*_ref fills them.
#include "earshot/engine/checkpoint/ggml_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "earshot/base/half_float.h"

namespace earshot::checkpoint {
namespace {

constexpr int block_values = 32;  // QK4_0 = QK4_1 = QK5_0 = QK5_1 = QK8_0

void put_f16(uint8_t* at, float value) {
    const uint16_t bits = base::f32_to_f16(value);
    std::memcpy(at, &bits, sizeof(bits));
}

float inverse_of(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

// The value of largest magnitude, with its sign (the first one on a tie).
float signed_extreme(const float* x) {
    float extreme = 0.0f;
    for (int j = 0; j < block_values; ++j) {
        if (std::fabs(x[j]) > std::fabs(extreme)) extreme = x[j];
    }
    return extreme;
}

// Levels 0..top of x / d + offset, truncated as ggml's (int8_t) cast does (the argument is >= 0
// but for rounding noise).
void symmetric_levels(const float* x, float d, float offset, int top, int* q) {
    const float inverse = inverse_of(d);
    for (int j = 0; j < block_values; ++j) {
        q[j] = std::clamp(static_cast<int>(x[j] * inverse + offset), 0, top);
    }
}

// Levels 0..top of (x - min) / d rounded to nearest; d and min through `d_out` and `min_out`.
void affine_levels(const float* x, int top, float& d_out, float& min_out, int* q) {
    float lo = x[0];
    float hi = x[0];
    for (int j = 1; j < block_values; ++j) {
        lo = std::min(lo, x[j]);
        hi = std::max(hi, x[j]);
    }
    d_out = (hi - lo) / static_cast<float>(top);
    min_out = lo;
    const float inverse = inverse_of(d_out);
    for (int j = 0; j < block_values; ++j) {
        q[j] = std::clamp(static_cast<int>((x[j] - lo) * inverse + 0.5f), 0, top);
    }
}

// qs[16]: value j in the low nibble of qs[j % 16] for j < 16, else the high one.
void pack_nibbles(const int* q, uint8_t* qs) {
    for (int j = 0; j < 16; ++j) {
        qs[j] = static_cast<uint8_t>((q[j] & 15) | (q[j + 16] & 15) << 4);
    }
}

// qh[4]: bit 4 of value j in bit j of a little-endian u32.
void pack_fifth_bits(const int* q, uint8_t* qh) {
    uint32_t high = 0;
    for (int j = 0; j < block_values; ++j) high |= static_cast<uint32_t>((q[j] >> 4) & 1) << j;
    for (int i = 0; i < 4; ++i) qh[i] = static_cast<uint8_t>(high >> (8 * i));
}

// q8_0 [34]: d | qs[32] int8.
void q8_0(const float* x, uint8_t* b) {
    float amax = 0.0f;
    for (int j = 0; j < block_values; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float inverse = inverse_of(d);
    put_f16(b, d);
    for (int j = 0; j < block_values; ++j) {
        const int q = std::clamp(static_cast<int>(std::round(x[j] * inverse)), -127, 127);
        b[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
    }
}

// q4_0 [18]: d | qs[16].
void q4_0(const float* x, uint8_t* b) {
    const float d = signed_extreme(x) / -8.0f;
    int q[block_values];
    symmetric_levels(x, d, 8.5f, 15, q);
    put_f16(b, d);
    pack_nibbles(q, b + 2);
}

// q4_1 [20]: d | m | qs[16].
void q4_1(const float* x, uint8_t* b) {
    float d = 0.0f;
    float m = 0.0f;
    int q[block_values];
    affine_levels(x, 15, d, m, q);
    put_f16(b, d);
    put_f16(b + 2, m);
    pack_nibbles(q, b + 4);
}

// q5_0 [22]: d | qh[4] | qs[16].
void q5_0(const float* x, uint8_t* b) {
    const float d = signed_extreme(x) / -16.0f;
    int q[block_values];
    symmetric_levels(x, d, 16.5f, 31, q);
    put_f16(b, d);
    pack_fifth_bits(q, b + 2);
    pack_nibbles(q, b + 6);
}

// q5_1 [24]: d | m | qh[4] | qs[16].
void q5_1(const float* x, uint8_t* b) {
    float d = 0.0f;
    float m = 0.0f;
    int q[block_values];
    affine_levels(x, 31, d, m, q);
    put_f16(b, d);
    put_f16(b + 2, m);
    pack_fifth_bits(q, b + 4);
    pack_nibbles(q, b + 8);
}

using BlockEncoder = void (*)(const float*, uint8_t*);

BlockEncoder encoder_of(GgmlType type) {
    switch (type) {
        case GgmlType::q4_0:
            return q4_0;
        case GgmlType::q4_1:
            return q4_1;
        case GgmlType::q5_0:
            return q5_0;
        case GgmlType::q5_1:
            return q5_1;
        case GgmlType::q8_0:
            return q8_0;
        default:
            return nullptr;
    }
}

}  // namespace

bool can_quantize_to(GgmlType type) { return encoder_of(type) != nullptr; }

std::vector<std::byte> quantize_ggml_blocks(GgmlType type, std::span<const float> values) {
    const BlockEncoder encode = encoder_of(type);
    if (encode == nullptr) {
        throw std::invalid_argument("cannot quantize to " + std::string(ggml_type_name(type)) +
                                    " (q4_0, q4_1, q5_0, q5_1 and q8_0 are written)");
    }
    if (values.size() % block_values != 0) {
        throw std::invalid_argument(std::to_string(values.size()) + " values are not whole " +
                                    std::string(ggml_type_name(type)) + " blocks of 32");
    }
    const GgmlBlockLayout layout = ggml_block_layout(type);
    const std::size_t blocks = values.size() / block_values;
    std::vector<std::byte> out(blocks * layout.bytes);
    for (std::size_t i = 0; i < blocks; ++i) {
        encode(values.data() + i * block_values,
               reinterpret_cast<uint8_t*>(out.data() + i * layout.bytes));
    }
    return out;
}

double ggml_quantize_error_bound(GgmlType type) {
    const double f16_step = 1.0 / 2048.0;  // relative rounding of a normal f16 (11-bit mantissa)
    switch (type) {
        case GgmlType::q8_0:
            return 0.5 / 127.0 + f16_step;
        case GgmlType::q5_0:
            return 1.0 / 16.0 + f16_step;
        case GgmlType::q4_0:
            return 1.0 / 8.0 + f16_step;
        case GgmlType::q5_1:
            return 1.0 / 31.0 + 3.0 * f16_step;  // range <= 2: d / 2 <= 1 / 31; d and m rounded
        case GgmlType::q4_1:
            return 1.0 / 15.0 + 3.0 * f16_step;
        default:
            return 0.0;
    }
}

}  // namespace earshot::checkpoint
