// The x86 block dot kernels (block_dot.h) on 256-bit vectors, written once for the two ISAs that
// run them: block_dot_avx2.cpp and block_dot_avx512.cpp each include this file, compiled with
// their own instruction-set flags, and the u8 x s8 integer dot becomes one VNNI instruction where
// the flags allow it. Include only from those files: everything here is internal to them.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#include "backend/cpu/quant/block_dot.h"

namespace earshot::backend::cpu {
namespace {

// 8 lanes: lane i = sum over bytes 4i .. 4i + 3 of u (unsigned) x s (signed). Without VNNI the
// pairs are first summed to i16: at most 2 x 255 x 127 in magnitude, no saturation for the
// levels here (|u| <= 128 with |s| <= 127).
inline __m256i dot_u8_s8(__m256i u, __m256i s) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

inline float f16_at(const std::byte* at) {
    uint16_t bits = 0;
    std::memcpy(&bits, at, sizeof(bits));
    return _cvtsh_ss(bits);
}

// 16 bytes of nibbles -> the 32 levels 0..15 in value order: the low nibbles are values 0..15,
// the high nibbles values 16..31.
inline __m256i nibbles(const std::byte* qs) {
    const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(q, 4), q);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}

// The u32 qh of a q5 block -> byte j = 0xff where bit j is set, else 0.
inline __m256i fifth_bits(const std::byte* qh_at) {
    uint32_t qh = 0;
    std::memcpy(&qh, qh_at, sizeof(qh));
    // Byte j takes byte j / 8 of qh (every 32-bit lane holds qh), then tests bit j % 8.
    const __m256i spread =
        _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(qh)),
                            _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
                                             2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
    return _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
}

inline float sum8(__m256 v) {
    __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    half = _mm_add_ss(half, _mm_shuffle_ps(half, half, 1));
    return _mm_cvtss_f32(half);
}

// Each type's block: its bytes, where its 16 bytes of nibbles lie, and its 32 levels unpacked as
// bytes in value order: signed (kSigned: the products go through dot_s8_s8) or unsigned with a
// min at byte 2 (kMin: plus m x the activation block's sum).
struct Q8_0 {  // d | qs[32] int8
    static constexpr int kBytes = 34;
    static constexpr bool kSigned = true;
    static constexpr bool kMin = false;
    static __m256i levels(const std::byte* block) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2));
    }
};
struct Q4_0 {  // d | qs[16]; level nibble - 8
    static constexpr int kBytes = 18;
    static constexpr bool kSigned = true;
    static constexpr bool kMin = false;
    static __m256i levels(const std::byte* block) {
        return _mm256_sub_epi8(nibbles(block + 2), _mm256_set1_epi8(8));
    }
};
struct Q4_1 {  // d | m | qs[16]; level nibble
    static constexpr int kBytes = 20;
    static constexpr bool kSigned = false;
    static constexpr bool kMin = true;
    static __m256i levels(const std::byte* block) { return nibbles(block + 4); }
};
struct Q5_0 {  // d | qh[4] | qs[16]; level (nibble | bit << 4) - 16: nibble - 16 where bit is clear
    static constexpr int kBytes = 22;
    static constexpr bool kSigned = true;
    static constexpr bool kMin = false;
    static __m256i levels(const std::byte* block) {
        const __m256i clear = _mm256_andnot_si256(fifth_bits(block + 2), _mm256_set1_epi8(0x10));
        return _mm256_sub_epi8(nibbles(block + 6), clear);
    }
};
struct Q5_1 {  // d | m | qh[4] | qs[16]; level nibble | bit << 4
    static constexpr int kBytes = 24;
    static constexpr bool kSigned = false;
    static constexpr bool kMin = true;
    static __m256i levels(const std::byte* block) {
        const __m256i high = _mm256_and_si256(fifth_bits(block + 4), _mm256_set1_epi8(0x10));
        return _mm256_or_si256(nibbles(block + 8), high);
    }
};

// out[r] = the dot of one weight row with activation row r (at x + r x x_stride) for r < kRows:
// each weight block is unpacked once for all rows. Per row, even and odd blocks accumulate in two
// FMA chains added at the end: the same arithmetic for any kRows, so a row's value does not depend
// on how many rows share the call.
template <typename Type, int kRows>
void dot_rows(const std::byte* w, const Q8Block* x, int64_t x_stride, int64_t blocks, float* out) {
    __m256 even[static_cast<size_t>(kRows)];
    __m256 odd[static_cast<size_t>(kRows)];
    float mins[static_cast<size_t>(kRows)];
    for (int r = 0; r < kRows; ++r) {
        even[r] = _mm256_setzero_ps();
        odd[r] = _mm256_setzero_ps();
        mins[r] = 0.0F;
    }
    const auto accumulate = [&](int64_t b, __m256* into) {
        const std::byte* block = w + b * Type::kBytes;
        const __m256i levels = Type::levels(block);
        // Signed levels: |w| as the unsigned operand, each row's activations given w's signs.
        const __m256i unsigned_levels = Type::kSigned ? _mm256_sign_epi8(levels, levels) : levels;
        const float d = f16_at(block);
        for (int r = 0; r < kRows; ++r) {
            const Q8Block& xb = x[r * x_stride + b];
            __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.qs));
            if constexpr (Type::kSigned) xq = _mm256_sign_epi8(xq, levels);
            into[r] = _mm256_fmadd_ps(_mm256_set1_ps(d * xb.d),
                                      _mm256_cvtepi32_ps(dot_u8_s8(unsigned_levels, xq)), into[r]);
            // One explicit FMA: the same rounding however the compiler arranges the rows.
            if constexpr (Type::kMin) {
                mins[r] = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(f16_at(block + 2)),
                                                     _mm_set_ss(xb.sum), _mm_set_ss(mins[r])));
            }
        }
    };
    int64_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        accumulate(b, even);
        accumulate(b + 1, odd);
    }
    if (b < blocks) accumulate(b, even);
    for (int r = 0; r < kRows; ++r) out[r] = sum8(_mm256_add_ps(even[r], odd[r])) + mins[r];
}

template <typename Type>
float dot_one(const std::byte* w, const Q8Block* x, int64_t blocks) {
    float out = 0.0F;
    dot_rows<Type, 1>(w, x, 0, blocks, &out);
    return out;
}

// rows (1 to kBlockDotMaxRows) -> dot_rows<Type, rows>.
template <typename Type, int kRows = 1>
void dot_up_to(const std::byte* w, const Q8Block* x, int64_t x_stride, int rows, int64_t blocks,
               float* out) {
    if constexpr (kRows < kBlockDotMaxRows) {
        if (rows > kRows) {
            dot_up_to<Type, kRows + 1>(w, x, x_stride, rows, blocks, out);
            return;
        }
    }
    dot_rows<Type, kRows>(w, x, x_stride, blocks, out);
}

BlockDot x86_block_dot(checkpoint::GgmlType type) {
    switch (type) {
        case checkpoint::GgmlType::q8_0:
            return dot_one<Q8_0>;
        case checkpoint::GgmlType::q4_0:
            return dot_one<Q4_0>;
        case checkpoint::GgmlType::q4_1:
            return dot_one<Q4_1>;
        case checkpoint::GgmlType::q5_0:
            return dot_one<Q5_0>;
        case checkpoint::GgmlType::q5_1:
            return dot_one<Q5_1>;
        default:
            return nullptr;
    }
}

BlockDotRows x86_block_dot_rows(checkpoint::GgmlType type) {
    switch (type) {
        case checkpoint::GgmlType::q8_0:
            return dot_up_to<Q8_0>;
        case checkpoint::GgmlType::q4_0:
            return dot_up_to<Q4_0>;
        case checkpoint::GgmlType::q4_1:
            return dot_up_to<Q4_1>;
        case checkpoint::GgmlType::q5_0:
            return dot_up_to<Q5_0>;
        case checkpoint::GgmlType::q5_1:
            return dot_up_to<Q5_1>;
        default:
            return nullptr;
    }
}

}  // namespace
}  // namespace earshot::backend::cpu
#endif
