// The project's reference quantizer for ggml's block formats, for tests: f32 values to the bytes
// of q4_0, q4_1, q5_0, q5_1, q8_0 and q2_k .. q6_k blocks (ggml-common.h layouts). It rounds to
// the nearest level; the k-quant scales are rounded up so that every value lies in its sub-block's
// range, which gives each format the error bound ggml_quant_error_bound states.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::test {

namespace ggml_quant_detail {

using checkpoint::GgmlType;

// f16 bits and the value they hold; `rounded_up`: the f16 at least as large as a value >= 0.
struct Half {
    uint16_t bits = 0;
    float value = 0.0f;
};
inline Half half_of(float x) {
    const uint16_t bits = base::f32_to_f16(x);
    return {bits, base::f16_to_f32(bits)};
}
inline Half half_at_least(float x) {
    Half h = half_of(x);
    if (h.value < x) h = {static_cast<uint16_t>(h.bits + 1), 0.0f};  // next f16 up (x >= 0)
    h.value = base::f16_to_f32(h.bits);
    return h;
}
inline void put_half(uint8_t* at, Half h) { std::memcpy(at, &h.bits, sizeof(h.bits)); }

inline int nearest(float x) { return static_cast<int>(std::lround(x)); }
inline int clamp(int v, int lo, int hi) { return std::min(hi, std::max(lo, v)); }

inline float abs_max(const float* x, int n) {
    float m = 0.0f;
    for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
    return m;
}

// q4_0 / q5_0 / q8_0: symmetric, d = amax / top so that +-amax are levels; q in [lo, top].
inline void symmetric_levels(const float* x, int lo, int top, Half& d, int* q) {
    d = half_at_least(abs_max(x, 32) / static_cast<float>(top));
    const float inverse = d.value > 0.0f ? 1.0f / d.value : 0.0f;
    for (int j = 0; j < 32; ++j) q[j] = clamp(nearest(x[j] * inverse), lo, top);
}

// q4_1 / q5_1: d = (max - min) / top, m = min (as f16); q in [0, top].
inline void affine_levels(const float* x, int top, Half& d, Half& m, int* q) {
    float lo = x[0];
    float hi = x[0];
    for (int j = 1; j < 32; ++j) {
        lo = std::min(lo, x[j]);
        hi = std::max(hi, x[j]);
    }
    m = half_of(lo);
    d = half_at_least(std::max(0.0f, hi - m.value) / static_cast<float>(top));
    const float inverse = d.value > 0.0f ? 1.0f / d.value : 0.0f;
    for (int j = 0; j < 32; ++j) q[j] = clamp(nearest((x[j] - m.value) * inverse), 0, top);
}

// q4_0 [18]: d | qs[16]: value j in the low nibble of qs[j % 16] for j < 16, else the high one.
inline void q4_0(const float* x, uint8_t* b) {
    Half d;
    int q[32];
    symmetric_levels(x, -8, 7, d, q);
    put_half(b, d);
    for (int j = 0; j < 16; ++j) b[2 + j] = static_cast<uint8_t>((q[j] + 8) | (q[j + 16] + 8) << 4);
}

inline void q4_1(const float* x, uint8_t* b) {
    Half d;
    Half m;
    int q[32];
    affine_levels(x, 15, d, m, q);
    put_half(b, d);
    put_half(b + 2, m);
    for (int j = 0; j < 16; ++j) b[4 + j] = static_cast<uint8_t>(q[j] | q[j + 16] << 4);
}

// q5: the low four bits as q4, bit 4 of value j in bit j of the little-endian u32 qh.
inline void pack_q5(const int* u, uint8_t* qh, uint8_t* qs) {
    uint32_t high = 0;
    for (int j = 0; j < 32; ++j) high |= static_cast<uint32_t>((u[j] >> 4) & 1) << j;
    for (int i = 0; i < 4; ++i) qh[i] = static_cast<uint8_t>(high >> (8 * i));
    for (int j = 0; j < 16; ++j) qs[j] = static_cast<uint8_t>((u[j] & 15) | (u[j + 16] & 15) << 4);
}

inline void q5_0(const float* x, uint8_t* b) {
    Half d;
    int q[32];
    symmetric_levels(x, -16, 15, d, q);
    for (int& v : q) v += 16;
    put_half(b, d);
    pack_q5(q, b + 2, b + 6);
}

inline void q5_1(const float* x, uint8_t* b) {
    Half d;
    Half m;
    int q[32];
    affine_levels(x, 31, d, m, q);
    put_half(b, d);
    put_half(b + 2, m);
    pack_q5(q, b + 4, b + 8);
}

inline void q8_0(const float* x, uint8_t* b) {
    Half d;
    int q[32];
    symmetric_levels(x, -128, 127, d, q);
    put_half(b, d);
    for (int j = 0; j < 32; ++j) b[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q[j]));
}

// Sub-block ranges of a k-quant super-block with unsigned levels 0..top: value = S q - M with
// S = sc * d and M = mn * dmin, sc and mn integers up to `scale_top`, both rounded up so that
// [-M, top S - M] holds every value of the sub-block.
struct AffineSubBlocks {
    Half d;
    Half dmin;
    int sc[16] = {};  // per sub-block (at most 16 in a super-block)
    int mn[16] = {};
    int q[256] = {};  // one level per value
};

inline AffineSubBlocks affine_sub_blocks(const float* x, int n, int size, int top, int scale_top) {
    const int count = n / size;
    AffineSubBlocks out;
    float lowest[16] = {};
    float highest[16] = {};
    float max_min = 0.0f;
    for (int s = 0; s < count; ++s) {
        lowest[s] = 0.0f;
        highest[s] = 0.0f;
        for (int l = 0; l < size; ++l) {
            lowest[s] = std::min(lowest[s], x[s * size + l]);
            highest[s] = std::max(highest[s], x[s * size + l]);
        }
        max_min = std::max(max_min, -lowest[s]);
    }
    out.dmin = half_at_least(max_min / static_cast<float>(scale_top));
    float needed[16] = {};
    float max_scale = 0.0f;
    for (int s = 0; s < count; ++s) {
        const int mn =
            out.dmin.value > 0.0f ? static_cast<int>(std::ceil(-lowest[s] / out.dmin.value)) : 0;
        out.mn[s] = clamp(mn, 0, scale_top);
        needed[s] =
            (highest[s] + static_cast<float>(out.mn[s]) * out.dmin.value) / static_cast<float>(top);
        max_scale = std::max(max_scale, needed[s]);
    }
    out.d = half_at_least(max_scale / static_cast<float>(scale_top));
    for (int s = 0; s < count; ++s) {
        const int sc =
            out.d.value > 0.0f ? static_cast<int>(std::ceil(needed[s] / out.d.value)) : 0;
        out.sc[s] = clamp(sc, 0, scale_top);
        const float step = static_cast<float>(out.sc[s]) * out.d.value;
        const float offset = static_cast<float>(out.mn[s]) * out.dmin.value;
        for (int l = 0; l < size; ++l) {
            const float v = x[s * size + l];
            out.q[s * size + l] = step > 0.0f ? clamp(nearest((v + offset) / step), 0, top) : 0;
        }
    }
    return out;
}

// Signed levels lo..top per sub-block: value = d * sc * q, sc an integer up to scale_top
// rounded up so that +-(sub-block amax) are in range.
struct SignedSubBlocks {
    Half d;
    int sc[16] = {};
    int q[256] = {};
};

inline SignedSubBlocks signed_sub_blocks(const float* x, int n, int size, int lo, int top,
                                         int scale_top) {
    const int count = n / size;
    SignedSubBlocks out;
    float needed[16] = {};
    float max_scale = 0.0f;
    for (int s = 0; s < count; ++s) {
        needed[s] = abs_max(x + s * size, size) / static_cast<float>(top);
        max_scale = std::max(max_scale, needed[s]);
    }
    out.d = half_at_least(max_scale / static_cast<float>(scale_top));
    for (int s = 0; s < count; ++s) {
        const int sc =
            out.d.value > 0.0f ? static_cast<int>(std::ceil(needed[s] / out.d.value)) : 0;
        out.sc[s] = clamp(sc, 0, scale_top);
        const float step = static_cast<float>(out.sc[s]) * out.d.value;
        for (int l = 0; l < size; ++l) {
            out.q[s * size + l] = step > 0.0f ? clamp(nearest(x[s * size + l] / step), lo, top) : 0;
        }
    }
    return out;
}

// q2_k [84]: scales[16] (sc | mn << 4) | qs[64] | d | dmin. Value v: 2 bits of
// qs[32 (v / 128) + v % 32] at 2 ((v % 128) / 32).
inline void q2_k(const float* x, uint8_t* b) {
    const AffineSubBlocks a = affine_sub_blocks(x, 256, 16, 3, 15);
    for (int s = 0; s < 16; ++s) b[s] = static_cast<uint8_t>(a.sc[s] | a.mn[s] << 4);
    for (int v = 0; v < 256; ++v) {
        b[16 + 32 * (v / 128) + v % 32] |= static_cast<uint8_t>(a.q[v] << (2 * ((v % 128) / 32)));
    }
    put_half(b + 80, a.d);
    put_half(b + 82, a.dmin);
}

// q3_k [110]: hmask[32] | qs[64] | scales[12] | d. u = q + 4: low 2 bits as q2_k, bit 2 in bit
// v / 32 of hmask[v % 32]; 6-bit scales stored + 32 (low nibbles in bytes 0..7, top two bits in
// bytes 8..11).
inline void q3_k(const float* x, uint8_t* b) {
    const SignedSubBlocks s = signed_sub_blocks(x, 256, 16, -4, 3, 31);
    for (int v = 0; v < 256; ++v) {
        const int u = s.q[v] + 4;
        b[32 + 32 * (v / 128) + v % 32] |= static_cast<uint8_t>((u & 3) << (2 * ((v % 128) / 32)));
        b[v % 32] |= static_cast<uint8_t>((u >> 2) << (v / 32));
    }
    uint8_t* packed = b + 96;
    for (int i = 0; i < 16; ++i) {
        const int u = s.sc[i] + 32;
        packed[i < 8 ? i : i - 8] |= static_cast<uint8_t>((u & 15) << (i < 8 ? 0 : 4));
        packed[8 + i % 4] |= static_cast<uint8_t>((u >> 4) << (2 * (i / 4)));
    }
    put_half(b + 108, s.d);
}

// The 12 bytes of eight 6-bit scales and mins of q4_k / q5_k (inverse of ggml's
// get_scale_min_k4).
inline void pack_scale_min_k4(const int* sc, const int* mn, uint8_t* s) {
    for (int j = 0; j < 4; ++j) {
        s[j] = static_cast<uint8_t>(sc[j] | (sc[j + 4] >> 4) << 6);
        s[j + 4] = static_cast<uint8_t>(mn[j] | (mn[j + 4] >> 4) << 6);
        s[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | (mn[j + 4] & 15) << 4);
    }
}

// q4_k [144]: d | dmin | scales[12] | qs[128]. Value v: nibble (low when v % 64 < 32) of
// qs[32 (v / 64) + v % 32].
inline void q4_k(const float* x, uint8_t* b) {
    const AffineSubBlocks a = affine_sub_blocks(x, 256, 32, 15, 63);
    put_half(b, a.d);
    put_half(b + 2, a.dmin);
    pack_scale_min_k4(a.sc, a.mn, b + 4);
    for (int v = 0; v < 256; ++v) {
        b[16 + 32 * (v / 64) + v % 32] |= static_cast<uint8_t>(a.q[v] << (v % 64 < 32 ? 0 : 4));
    }
}

// q5_k [176]: d | dmin | scales[12] | qh[32] | qs[128]: q4_k plus bit 4 of value v in bit v / 32
// of qh[v % 32].
inline void q5_k(const float* x, uint8_t* b) {
    const AffineSubBlocks a = affine_sub_blocks(x, 256, 32, 31, 63);
    put_half(b, a.d);
    put_half(b + 2, a.dmin);
    pack_scale_min_k4(a.sc, a.mn, b + 4);
    for (int v = 0; v < 256; ++v) {
        b[48 + 32 * (v / 64) + v % 32] |=
            static_cast<uint8_t>((a.q[v] & 15) << (v % 64 < 32 ? 0 : 4));
        b[16 + v % 32] |= static_cast<uint8_t>((a.q[v] >> 4) << (v / 32));
    }
}

// q6_k [210]: ql[128] | qh[64] | scales[16] int8 | d. Value v = 128 n + 32 k + l: u = q + 32,
// its nibble in ql[64 n + l + 32 (k % 2)] (low for k < 2), its top two bits at 2 k of
// qh[32 n + l], its scale scales[8 n + l / 16 + 2 k].
inline void q6_k(const float* x, uint8_t* b) {
    const SignedSubBlocks s = signed_sub_blocks(x, 256, 16, -32, 31, 127);
    for (int v = 0; v < 256; ++v) {
        const int n = v / 128;
        const int k = (v % 128) / 32;
        const int l = v % 32;
        const int u = s.q[v] + 32;
        b[64 * n + l + 32 * (k % 2)] |= static_cast<uint8_t>((u & 15) << (k < 2 ? 0 : 4));
        b[128 + 32 * n + l] |= static_cast<uint8_t>((u >> 4) << (2 * k));
    }
    // Sub-block s of the quantizer (16 values from 16 s) is scales[8 n + l / 16 + 2 k].
    for (int sub = 0; sub < 16; ++sub) {
        const int v = 16 * sub;
        const int index = 8 * (v / 128) + (v % 32) / 16 + 2 * ((v % 128) / 32);
        b[192 + index] = static_cast<uint8_t>(static_cast<int8_t>(s.sc[sub]));
    }
    put_half(b + 208, s.d);
}

}  // namespace ggml_quant_detail

// The bytes of `values` (a whole number of blocks) quantized to `type`.
inline std::vector<std::byte> quantize_ggml(checkpoint::GgmlType type,
                                            std::span<const float> values) {
    using checkpoint::GgmlType;
    namespace d = ggml_quant_detail;
    const checkpoint::GgmlBlockLayout layout = checkpoint::ggml_block_layout(type);
    if (!checkpoint::is_quantized(type) || values.size() % layout.elements != 0) {
        throw std::invalid_argument("quantize_ggml: " + std::to_string(values.size()) +
                                    " values are not whole " +
                                    std::string(checkpoint::ggml_type_name(type)) + " blocks");
    }
    const std::size_t blocks = values.size() / layout.elements;
    std::vector<std::byte> out(blocks * layout.bytes);
    void (*encode)(const float*, uint8_t*) = nullptr;
    switch (type) {
        case GgmlType::q4_0:
            encode = d::q4_0;
            break;
        case GgmlType::q4_1:
            encode = d::q4_1;
            break;
        case GgmlType::q5_0:
            encode = d::q5_0;
            break;
        case GgmlType::q5_1:
            encode = d::q5_1;
            break;
        case GgmlType::q8_0:
            encode = d::q8_0;
            break;
        case GgmlType::q2_k:
            encode = d::q2_k;
            break;
        case GgmlType::q3_k:
            encode = d::q3_k;
            break;
        case GgmlType::q4_k:
            encode = d::q4_k;
            break;
        case GgmlType::q5_k:
            encode = d::q5_k;
            break;
        case GgmlType::q6_k:
            encode = d::q6_k;
            break;
        case GgmlType::f32:
        case GgmlType::f16:
            break;
    }
    for (std::size_t i = 0; i < blocks; ++i) {
        encode(values.data() + i * layout.elements,
               reinterpret_cast<uint8_t*>(out.data() + i * layout.bytes));
    }
    return out;
}

// The largest |x - decoded x| this quantizer allows for a value of a block (32 values; k-quants:
// the 256-value super-block) whose largest |x| is 1, before the f16 rounding of the decoded
// value. Half a level step at the widest range the format's rounded-up scales allow:
// - q8_0, q5_0, q4_0: d = amax / 127, 15, 7 -> d / 2;
// - q5_1, q4_1: d = (max - min) / 31, 15 <= 2 amax / 31, 15 -> d / 2, plus the f16 rounding of m;
// - q2_k, q4_k, q5_k (levels 0..3, 15, 31; 4-, 6-, 6-bit sc and mn): M <= amax (1 + 1/15, 1/63,
//   1/63), S <= (amax + M) / top + d with d = S_max / (15, 63, 63) -> S / 2;
// - q3_k, q6_k (levels -4..3, -32..31; 6-bit signed, int8 scales): S <= amax / (3, 31) (1 +
//   1/31, 1/127) -> S / 2.
// Each with a margin of 1/300 for the rounding up of d and dmin to f16.
inline double ggml_quant_error_bound(checkpoint::GgmlType type) {
    using checkpoint::GgmlType;
    const double margin = 1.0 + 1.0 / 300.0;
    switch (type) {
        case GgmlType::q8_0:
            return margin * 0.5 / 127.0;
        case GgmlType::q5_0:
            return margin * 0.5 / 15.0;
        case GgmlType::q4_0:
            return margin * 0.5 / 7.0;
        case GgmlType::q5_1:
            return margin * 1.0 / 31.0 + 1.0 / 2048.0;
        case GgmlType::q4_1:
            return margin * 1.0 / 15.0 + 1.0 / 2048.0;
        case GgmlType::q2_k: {
            const double m = 1.0 + margin / 15.0;
            const double s = (1.0 + m) / 3.0;
            return 0.5 * s * (1.0 + margin / 15.0);
        }
        case GgmlType::q4_k: {
            const double m = 1.0 + margin / 63.0;
            const double s = (1.0 + m) / 15.0;
            return 0.5 * s * (1.0 + margin / 63.0);
        }
        case GgmlType::q5_k: {
            const double m = 1.0 + margin / 63.0;
            const double s = (1.0 + m) / 31.0;
            return 0.5 * s * (1.0 + margin / 63.0);
        }
        case GgmlType::q3_k:
            return 0.5 / 3.0 * (1.0 + margin / 31.0) * margin;
        case GgmlType::q6_k:
            return 0.5 / 31.0 * (1.0 + margin / 127.0) * margin;
        case GgmlType::f32:
        case GgmlType::f16:
            break;
    }
    return 0.0;
}

}  // namespace earshot::test
