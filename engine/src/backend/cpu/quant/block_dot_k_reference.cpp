// The scalar reference of the k-quant block dots (block_dot_k.h): each super-block unpacked to its
// 256 signed levels in value order with one scale (and min) per 16 values, the layouts spelled out
// one value at a time as checkpoint/ggml_k_quants.cpp decodes them, then the integer sums.
#include <cstring>

#include "backend/cpu/quant/block_dot_k.h"
#include "earshot/base/half_float.h"

namespace earshot::backend::cpu {

namespace {

using checkpoint::GgmlType;

float read_f16(const std::byte* at) {
    uint16_t bits = 0;
    std::memcpy(&bits, at, sizeof(bits));
    return base::f16_to_f32(bits);
}

const uint8_t* bytes_at(const std::byte* at) { return reinterpret_cast<const uint8_t*>(at); }

// One super-block: value v = d * scale[v / 16] * q[v] - dmin * min[v / 16].
struct Unpacked {
    float d = 0.0F;
    float dmin = 0.0F;
    int q[256] = {};
    int scale[16] = {};
    int min[16] = {};
};

// The 6-bit scale and min of sub-block j (0..7) of q4_k / q5_k (ggml's get_scale_min_k4).
void scale_min_k4(int j, const uint8_t* s, int& scale, int& min) {
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
        min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// q2_k [84]: scales[16] | qs[64] | d | dmin. For half h, shift s (value 128 h + 32 s + l):
// bits 2 s of qs[32 h + l]; sub-block i: scale scales[i] & 15, min scales[i] >> 4.
Unpacked unpack_q2_k(const std::byte* block) {
    Unpacked u;
    const uint8_t* scales = bytes_at(block);
    const uint8_t* qs = bytes_at(block + 16);
    u.d = read_f16(block + 80);
    u.dmin = read_f16(block + 82);
    for (int v = 0; v < 256; ++v) {
        const int h = v / 128;
        const int s = (v % 128) / 32;
        u.q[v] = (qs[32 * h + v % 32] >> (2 * s)) & 3;
    }
    for (int i = 0; i < 16; ++i) {
        u.scale[i] = scales[i] & 0x0f;
        u.min[i] = scales[i] >> 4;
    }
    return u;
}

// q3_k [110]: hmask[32] | qs[64] | scales[12] | d. q2_k's order, minus 4 where bit 4 h + s of
// hmask[l] is clear; 6-bit scales stored + 32.
Unpacked unpack_q3_k(const std::byte* block) {
    Unpacked u;
    const uint8_t* hmask = bytes_at(block);
    const uint8_t* qs = bytes_at(block + 32);
    const uint8_t* packed = bytes_at(block + 96);
    u.d = read_f16(block + 108);
    for (int v = 0; v < 256; ++v) {
        const int h = v / 128;
        const int s = (v % 128) / 32;
        const int l = v % 32;
        const int low = (qs[32 * h + l] >> (2 * s)) & 3;
        u.q[v] = low - (((hmask[l] >> (4 * h + s)) & 1) != 0 ? 0 : 4);
    }
    for (int i = 0; i < 16; ++i) {
        const int low = i < 8 ? (packed[i] & 0x0f) : (packed[i - 8] >> 4);
        const int high = (packed[8 + i % 4] >> (2 * (i / 4))) & 3;
        u.scale[i] = (low | high << 4) - 32;
    }
    return u;
}

// q4_k [144] and q5_k [176]: d | dmin | scales[12] | (q5_k: qh[32]) | qs[128]. Value 32 c + l
// (sub-block c of 32): nibble c % 2 of qs[32 (c / 2) + l] (| bit c of qh[l] << 4).
Unpacked unpack_q45_k(const std::byte* block, bool fifth_bit) {
    Unpacked u;
    u.d = read_f16(block);
    u.dmin = read_f16(block + 2);
    const uint8_t* packed = bytes_at(block + 4);
    const uint8_t* qh = bytes_at(block + 16);
    const uint8_t* qs = bytes_at(block + (fifth_bit ? 48 : 16));
    for (int v = 0; v < 256; ++v) {
        const int c = v / 32;
        const int l = v % 32;
        const uint8_t byte = qs[32 * (c / 2) + l];
        const int nibble = c % 2 == 0 ? byte & 0x0f : byte >> 4;
        u.q[v] = nibble | (fifth_bit ? ((qh[l] >> c) & 1) << 4 : 0);
    }
    for (int c = 0; c < 8; ++c) {
        int scale = 0;
        int min = 0;
        scale_min_k4(c, packed, scale, min);
        u.scale[2 * c] = u.scale[2 * c + 1] = scale;
        u.min[2 * c] = u.min[2 * c + 1] = min;
    }
    return u;
}

Unpacked unpack_q4_k(const std::byte* block) { return unpack_q45_k(block, false); }
Unpacked unpack_q5_k(const std::byte* block) { return unpack_q45_k(block, true); }

// q6_k [210]: ql[128] | qh[64] | scales[16] int8 | d. Value 128 n + 32 k + l: nibble k / 2 of
// ql[64 n + 32 (k % 2) + l] | bits 2 k of qh[32 n + l] << 4, minus 32; scale scales[8 n + 2 k +
// l / 16], which is sub-block (128 n + 32 k + l) / 16.
Unpacked unpack_q6_k(const std::byte* block) {
    Unpacked u;
    const uint8_t* ql = bytes_at(block);
    const uint8_t* qh = bytes_at(block + 128);
    const uint8_t* scales = bytes_at(block + 192);
    u.d = read_f16(block + 208);
    for (int v = 0; v < 256; ++v) {
        const int n = v / 128;
        const int k = (v % 128) / 32;
        const int l = v % 32;
        const uint8_t source = ql[64 * n + 32 * (k % 2) + l];
        const int nibble = k < 2 ? source & 0x0f : source >> 4;
        u.q[v] = (nibble | ((qh[32 * n + l] >> (2 * k)) & 3) << 4) - 32;
    }
    for (int i = 0; i < 16; ++i) u.scale[i] = static_cast<int8_t>(scales[i]);
    return u;
}

template <Unpacked (*kUnpack)(const std::byte*), int kBytes>
float dot(const std::byte* w, const Q8KBlock* x, int64_t blocks) {
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b, w += kBytes) {
        const Unpacked u = kUnpack(w);
        int32_t levels = 0;
        int32_t mins = 0;
        for (int i = 0; i < 16; ++i) {
            int32_t sub = 0;
            for (int l = 0; l < 16; ++l) sub += u.q[16 * i + l] * x[b].qs[16 * i + l];
            levels += u.scale[i] * sub;
            mins += u.min[i] * x[b].bsums[i];
        }
        sum +=
            u.d * x[b].d * static_cast<float>(levels) - u.dmin * x[b].d * static_cast<float>(mins);
    }
    return sum;
}

template <KBlockDot kDot>
void dot_each_row(const std::byte* w, const Q8KBlock* x, int64_t x_stride, int rows, int64_t blocks,
                  float* out) {
    for (int r = 0; r < rows; ++r) out[r] = kDot(w, x + r * x_stride, blocks);
}

}  // namespace

KBlockDot reference_k_block_dot(GgmlType type) {
    switch (type) {
        case GgmlType::q2_k:
            return dot<unpack_q2_k, 84>;
        case GgmlType::q3_k:
            return dot<unpack_q3_k, 110>;
        case GgmlType::q4_k:
            return dot<unpack_q4_k, 144>;
        case GgmlType::q5_k:
            return dot<unpack_q5_k, 176>;
        case GgmlType::q6_k:
            return dot<unpack_q6_k, 210>;
        default:
            return nullptr;
    }
}

KBlockDotRows reference_k_block_dot_rows(GgmlType type) {
    switch (type) {
        case GgmlType::q2_k:
            return dot_each_row<dot<unpack_q2_k, 84>>;
        case GgmlType::q3_k:
            return dot_each_row<dot<unpack_q3_k, 110>>;
        case GgmlType::q4_k:
            return dot_each_row<dot<unpack_q4_k, 144>>;
        case GgmlType::q5_k:
            return dot_each_row<dot<unpack_q5_k, 176>>;
        case GgmlType::q6_k:
            return dot_each_row<dot<unpack_q6_k, 210>>;
        default:
            return nullptr;
    }
}

bool has_k_block_dot(GgmlType type) { return reference_k_block_dot(type) != nullptr; }

}  // namespace earshot::backend::cpu
