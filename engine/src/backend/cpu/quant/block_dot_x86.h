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

// Signed x signed through the unsigned form: |a| x (b with a's sign).
inline __m256i dot_s8_s8(__m256i a, __m256i b) {
    return dot_u8_s8(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
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

// The row loop every type shares: `levels(block, xq)` gives the block's 8 lanes of integer dot;
// kMin: the block's f16 min at byte 2 times the activation block's sum. Two accumulators (even
// and odd blocks) keep two FMA chains in flight.
template <int kBlockBytes, bool kMin, typename Levels>
inline float dot_blocks(const std::byte* w, const Q8Block* x, int64_t blocks, Levels levels) {
    __m256 even = _mm256_setzero_ps();
    __m256 odd = _mm256_setzero_ps();
    float mins = 0.0F;
    int64_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const std::byte* w0 = w + b * kBlockBytes;
        const std::byte* w1 = w0 + kBlockBytes;
        const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
        const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b + 1].qs));
        even = _mm256_fmadd_ps(_mm256_set1_ps(f16_at(w0) * x[b].d),
                               _mm256_cvtepi32_ps(levels(w0, x0)), even);
        odd = _mm256_fmadd_ps(_mm256_set1_ps(f16_at(w1) * x[b + 1].d),
                              _mm256_cvtepi32_ps(levels(w1, x1)), odd);
        if constexpr (kMin) mins += f16_at(w0 + 2) * x[b].sum + f16_at(w1 + 2) * x[b + 1].sum;
    }
    if (b < blocks) {
        const std::byte* w0 = w + b * kBlockBytes;
        const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
        even = _mm256_fmadd_ps(_mm256_set1_ps(f16_at(w0) * x[b].d),
                               _mm256_cvtepi32_ps(levels(w0, x0)), even);
        if constexpr (kMin) mins += f16_at(w0 + 2) * x[b].sum;
    }
    return sum8(_mm256_add_ps(even, odd)) + mins;
}

// q8_0 [34 bytes]: d | qs[32] int8.
float x86_dot_q8_0(const std::byte* w, const Q8Block* x, int64_t blocks) {
    return dot_blocks<34, false>(w, x, blocks, [](const std::byte* block, __m256i xq) {
        return dot_s8_s8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2)), xq);
    });
}

// q4_0 [18 bytes]: d | qs[16]; level nibble - 8.
float x86_dot_q4_0(const std::byte* w, const Q8Block* x, int64_t blocks) {
    return dot_blocks<18, false>(w, x, blocks, [](const std::byte* block, __m256i xq) {
        return dot_s8_s8(_mm256_sub_epi8(nibbles(block + 2), _mm256_set1_epi8(8)), xq);
    });
}

// q4_1 [20 bytes]: d | m | qs[16]; level nibble (unsigned), plus m x the activations' sum.
float x86_dot_q4_1(const std::byte* w, const Q8Block* x, int64_t blocks) {
    return dot_blocks<20, true>(w, x, blocks, [](const std::byte* block, __m256i xq) {
        return dot_u8_s8(nibbles(block + 4), xq);
    });
}

// q5_0 [22 bytes]: d | qh[4] | qs[16]; level (nibble | bit << 4) - 16 = nibble - 16 where the
// bit is clear.
float x86_dot_q5_0(const std::byte* w, const Q8Block* x, int64_t blocks) {
    return dot_blocks<22, false>(w, x, blocks, [](const std::byte* block, __m256i xq) {
        const __m256i clear = _mm256_andnot_si256(fifth_bits(block + 2), _mm256_set1_epi8(0x10));
        return dot_s8_s8(_mm256_sub_epi8(nibbles(block + 6), clear), xq);
    });
}

// q5_1 [24 bytes]: d | m | qh[4] | qs[16]; level nibble | bit << 4 (unsigned), plus m x sum.
float x86_dot_q5_1(const std::byte* w, const Q8Block* x, int64_t blocks) {
    return dot_blocks<24, true>(w, x, blocks, [](const std::byte* block, __m256i xq) {
        const __m256i high = _mm256_and_si256(fifth_bits(block + 4), _mm256_set1_epi8(0x10));
        return dot_u8_s8(_mm256_or_si256(nibbles(block + 8), high), xq);
    });
}

BlockDot x86_block_dot(checkpoint::GgmlType type) {
    switch (type) {
        case checkpoint::GgmlType::q8_0:
            return x86_dot_q8_0;
        case checkpoint::GgmlType::q4_0:
            return x86_dot_q4_0;
        case checkpoint::GgmlType::q4_1:
            return x86_dot_q4_1;
        case checkpoint::GgmlType::q5_0:
            return x86_dot_q5_0;
        case checkpoint::GgmlType::q5_1:
            return x86_dot_q5_1;
        default:
            return nullptr;
    }
}

}  // namespace
}  // namespace earshot::backend::cpu
#endif
