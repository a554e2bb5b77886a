// The x86 k-quant block dot kernels (block_dot_k.h) on 256-bit vectors, written once for the two
// ISAs that run them: block_dot_avx2.cpp and block_dot_avx512.cpp each include this file,
// compiled with their own instruction-set flags. A super-block is taken as eight
// chunks of 32 values in value order, each unpacked once to unsigned levels (0 .. 63) for all the
// rows; per row, vpmaddubsw sums level x activation pairs to i16 and vpmaddwd multiplies them by
// the sub-block scales into i32 lanes, so a super-block's integer sum is exact. Include only from
// those files: everything here is internal to them.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#include "backend/cpu/quant/block_dot_k.h"
#include "backend/cpu/quant/block_dot_x86.h"  // f16_at, sum8

namespace earshot::backend::cpu {
namespace {

// What a super-block's header gives: its scales, and per 16 values the scale (and min) as i16.
struct KHeader {
    float d = 0.0F;
    float dmin = 0.0F;
    __m256i scales = _mm256_setzero_si256();  // [16] i16: the scale of values 16 i .. 16 i + 15
    __m256i mins = _mm256_setzero_si256();    // [16] i16: their min (the types with kMin)
};

inline __m256i load32(const std::byte* at) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
}

// Bytes of `v` shifted right by `bits` (each 16-bit lane shifted, then the bits that crossed from
// the next byte masked off by `mask`).
inline __m256i shifted(__m256i v, int bits, int mask) {
    return _mm256_and_si256(_mm256_srli_epi16(v, bits), _mm256_set1_epi8(static_cast<char>(mask)));
}

// The i16 scale vector of chunk c (values 32 c .. 32 c + 31): the scale of its first 16 values in
// the low 128 bits, of its last 16 in the high 128 bits, each repeated (the order of vpmaddubsw's
// pair sums).
inline __m256i chunk_scales(__m256i scales, int c) {
    const __m256i pair = _mm256_permutevar8x32_epi32(scales, _mm256_set1_epi32(c));
    return _mm256_shuffle_epi8(
        pair, _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2,
                               3, 2, 3, 2, 3, 2, 3, 2, 3));
}

// Each type: its bytes, kOffsetShift (levels stored + 2^shift: q3_k 4, q6_k 32; 0 for none), kMin
// (value scale x q - min), header(), and chunks(block, f) calling f(c, levels) for c = 0 .. 7.
struct Q2K {  // scales[16] | qs[64] | d | dmin
    static constexpr int kBytes = 84;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kMin = true;
    static KHeader header(const std::byte* block) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block));
        KHeader h;
        h.d = f16_at(block + 80);
        h.dmin = f16_at(block + 82);
        h.scales = _mm256_cvtepu8_epi16(_mm_and_si128(packed, _mm_set1_epi8(0x0f)));
        h.mins =
            _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0f)));
        return h;
    }
    template <typename F>
    static void chunks(const std::byte* block, const F& f) {
        for (int half = 0; half < 2; ++half) {
            const __m256i q = load32(block + 16 + 32 * half);
            for (int s = 0; s < 4; ++s) f(4 * half + s, shifted(q, 2 * s, 3));
        }
    }
};

struct Q3K {  // hmask[32] | qs[64] | scales[12] | d; level = 2 bits + 4 x the hmask bit - 4
    static constexpr int kBytes = 110;
    static constexpr int kOffsetShift = 2;
    static constexpr bool kMin = false;
    // Scale i (6 bits, stored + 32): low nibble of byte i (i < 8) or high nibble of byte i - 8,
    // with bits 2 (i / 4) .. 2 (i / 4) + 1 of byte 8 + i % 4 above it; four scales at a time.
    static KHeader header(const std::byte* block) {
        uint32_t a = 0;
        uint32_t b = 0;
        uint32_t c = 0;
        std::memcpy(&a, block + 96, 4);
        std::memcpy(&b, block + 100, 4);
        std::memcpy(&c, block + 104, 4);
        const auto scales = [&](uint32_t low, int shift) {
            return static_cast<int>((low & 0x0f0f0f0fU) | ((c >> shift) & 0x03030303U) << 4);
        };
        const __m128i biased =
            _mm_setr_epi32(scales(a, 0), scales(b, 2), scales(a >> 4, 4), scales(b >> 4, 6));
        KHeader h;
        h.d = f16_at(block + 108);
        h.scales = _mm256_cvtepi8_epi16(_mm_sub_epi8(biased, _mm_set1_epi8(32)));
        return h;
    }
    template <typename F>
    static void chunks(const std::byte* block, const F& f) {
        const __m256i hmask = load32(block);
        for (int half = 0; half < 2; ++half) {
            const __m256i q = load32(block + 32 + 32 * half);
            for (int s = 0; s < 4; ++s) {
                const __m256i high = _mm256_slli_epi16(shifted(hmask, 4 * half + s, 1), 2);
                f(4 * half + s, _mm256_or_si256(shifted(q, 2 * s, 3), high));
            }
        }
    }
};

// The eight 6-bit scales and mins of q4_k / q5_k (bytes 4 .. 15 of the block), each repeated for
// the two 16-value halves of its sub-block: scale j < 4 is s[j] & 63, j >= 4 is the low nibble
// of s[j + 4] with bits 6..7 of s[j - 4] above it; min j < 4 is s[j + 4] & 63, j >= 4 the high
// nibble of s[j + 4] with bits 6..7 of s[j] above it (four bytes at a time).
inline void scales_mins_k4(const std::byte* packed, KHeader& h) {
    uint32_t a = 0;
    uint32_t b = 0;
    uint32_t c = 0;
    std::memcpy(&a, packed, 4);
    std::memcpy(&b, packed + 4, 4);
    std::memcpy(&c, packed + 8, 4);
    const uint32_t scales_low = a & 0x3f3f3f3fU;
    const uint32_t scales_high = (c & 0x0f0f0f0fU) | ((a >> 6) & 0x03030303U) << 4;
    const uint32_t mins_low = b & 0x3f3f3f3fU;
    const uint32_t mins_high = ((c >> 4) & 0x0f0f0f0fU) | ((b >> 6) & 0x03030303U) << 4;
    const __m128i scales =
        _mm_setr_epi32(static_cast<int>(scales_low), static_cast<int>(scales_high), 0, 0);
    const __m128i mins =
        _mm_setr_epi32(static_cast<int>(mins_low), static_cast<int>(mins_high), 0, 0);
    h.scales = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(scales, scales));
    h.mins = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(mins, mins));
}

struct Q4K {  // d | dmin | scales[12] | qs[128]
    static constexpr int kBytes = 144;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kMin = true;
    static KHeader header(const std::byte* block) {
        KHeader h;
        h.d = f16_at(block);
        h.dmin = f16_at(block + 2);
        scales_mins_k4(block + 4, h);
        return h;
    }
    template <typename F>
    static void chunks(const std::byte* block, const F& f) {
        for (int j = 0; j < 4; ++j) {
            const __m256i q = load32(block + 16 + 32 * j);
            f(2 * j, _mm256_and_si256(q, _mm256_set1_epi8(0x0f)));
            f(2 * j + 1, shifted(q, 4, 0x0f));
        }
    }
};

struct Q5K {  // d | dmin | scales[12] | qh[32] | qs[128]; chunk c's fifth bit is bit c of qh
    static constexpr int kBytes = 176;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kMin = true;
    static KHeader header(const std::byte* block) { return Q4K::header(block); }
    template <typename F>
    static void chunks(const std::byte* block, const F& f) {
        const __m256i qh = load32(block + 16);
        for (int j = 0; j < 4; ++j) {
            const __m256i q = load32(block + 48 + 32 * j);
            const __m256i high_even = _mm256_slli_epi16(shifted(qh, 2 * j, 1), 4);
            const __m256i high_odd = _mm256_slli_epi16(shifted(qh, 2 * j + 1, 1), 4);
            f(2 * j, _mm256_or_si256(_mm256_and_si256(q, _mm256_set1_epi8(0x0f)), high_even));
            f(2 * j + 1, _mm256_or_si256(shifted(q, 4, 0x0f), high_odd));
        }
    }
};

struct Q6K {  // ql[128] | qh[64] | scales[16] int8 | d; level = 6 bits - 32
    static constexpr int kBytes = 210;
    static constexpr int kOffsetShift = 5;
    static constexpr bool kMin = false;
    static KHeader header(const std::byte* block) {
        KHeader h;
        h.d = f16_at(block + 208);
        h.scales =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 192)));
        return h;
    }
    template <typename F>
    static void chunks(const std::byte* block, const F& f) {
        for (int n = 0; n < 2; ++n) {
            const __m256i low0 = load32(block + 64 * n);
            const __m256i low1 = load32(block + 64 * n + 32);
            const __m256i qh = load32(block + 128 + 32 * n);
            const auto high = [&](int k) { return _mm256_slli_epi16(shifted(qh, 2 * k, 3), 4); };
            f(4 * n, _mm256_or_si256(_mm256_and_si256(low0, _mm256_set1_epi8(0x0f)), high(0)));
            f(4 * n + 1, _mm256_or_si256(_mm256_and_si256(low1, _mm256_set1_epi8(0x0f)), high(1)));
            f(4 * n + 2, _mm256_or_si256(shifted(low0, 4, 0x0f), high(2)));
            f(4 * n + 3, _mm256_or_si256(shifted(low1, 4, 0x0f), high(3)));
        }
    }
};

// out[r] = the dot of one weight row with activation row r (at x + r x x_stride) for r < kRows,
// each super-block unpacked once for all rows. A row's arithmetic does not depend on kRows.
template <typename Type, int kRows>
void k_dot_rows(const std::byte* w, const Q8KBlock* x, int64_t x_stride, int64_t blocks,
                float* out) {
    __m256 acc[static_cast<size_t>(kRows)];
    for (int r = 0; r < kRows; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const std::byte* block = w + b * Type::kBytes;
        const KHeader h = Type::header(block);
        __m256i levels_sum[static_cast<size_t>(kRows)];  // [8] i32 per row
        for (int r = 0; r < kRows; ++r) levels_sum[r] = _mm256_setzero_si256();
        Type::chunks(block, [&](int c, __m256i levels) {
            const __m256i scales = chunk_scales(h.scales, c);
            for (int r = 0; r < kRows; ++r) {
                const __m256i xq = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(x[r * x_stride + b].qs + 32 * c));
                const __m256i pairs = _mm256_maddubs_epi16(levels, xq);  // |pair| <= 2 x 63 x 127
                levels_sum[r] = _mm256_add_epi32(levels_sum[r], _mm256_madd_epi16(pairs, scales));
            }
        });
        for (int r = 0; r < kRows; ++r) {
            const Q8KBlock& xb = x[r * x_stride + b];
            const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.bsums));
            __m256i levels = levels_sum[r];
            if constexpr (Type::kOffsetShift > 0) {  // less 2^shift x scale x each 16's sum
                levels = _mm256_sub_epi32(
                    levels,
                    _mm256_slli_epi32(_mm256_madd_epi16(h.scales, bsums), Type::kOffsetShift));
            }
            acc[r] =
                _mm256_fmadd_ps(_mm256_set1_ps(h.d * xb.d), _mm256_cvtepi32_ps(levels), acc[r]);
            if constexpr (Type::kMin) {
                acc[r] =
                    _mm256_fnmadd_ps(_mm256_set1_ps(h.dmin * xb.d),
                                     _mm256_cvtepi32_ps(_mm256_madd_epi16(h.mins, bsums)), acc[r]);
            }
        }
    }
    for (int r = 0; r < kRows; ++r) out[r] = sum8(acc[r]);
}

template <typename Type>
float k_dot_one(const std::byte* w, const Q8KBlock* x, int64_t blocks) {
    float out = 0.0F;
    k_dot_rows<Type, 1>(w, x, 0, blocks, &out);
    return out;
}

template <typename Type, int kRows = 1>
void k_dot_up_to(const std::byte* w, const Q8KBlock* x, int64_t x_stride, int rows, int64_t blocks,
                 float* out) {
    if constexpr (kRows < kKBlockDotMaxRows) {
        if (rows > kRows) {
            k_dot_up_to<Type, kRows + 1>(w, x, x_stride, rows, blocks, out);
            return;
        }
    }
    k_dot_rows<Type, kRows>(w, x, x_stride, blocks, out);
}

KBlockDot x86_k_block_dot(checkpoint::GgmlType type) {
    switch (type) {
        case checkpoint::GgmlType::q2_k:
            return k_dot_one<Q2K>;
        case checkpoint::GgmlType::q3_k:
            return k_dot_one<Q3K>;
        case checkpoint::GgmlType::q4_k:
            return k_dot_one<Q4K>;
        case checkpoint::GgmlType::q5_k:
            return k_dot_one<Q5K>;
        case checkpoint::GgmlType::q6_k:
            return k_dot_one<Q6K>;
        default:
            return nullptr;
    }
}

KBlockDotRows x86_k_block_dot_rows(checkpoint::GgmlType type) {
    switch (type) {
        case checkpoint::GgmlType::q2_k:
            return k_dot_up_to<Q2K>;
        case checkpoint::GgmlType::q3_k:
            return k_dot_up_to<Q3K>;
        case checkpoint::GgmlType::q4_k:
            return k_dot_up_to<Q4K>;
        case checkpoint::GgmlType::q5_k:
            return k_dot_up_to<Q5K>;
        case checkpoint::GgmlType::q6_k:
            return k_dot_up_to<Q6K>;
        default:
            return nullptr;
    }
}

}  // namespace
}  // namespace earshot::backend::cpu
#endif
