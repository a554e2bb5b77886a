// f16 / bf16 bit conversions. f16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; bf16: the top
// 16 bits of an f32 (IEEE 754-2008 binary16; bfloat16 as used by PyTorch).
#include "earshot/base/half_float.h"

#include <bit>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EARSHOT_HALF_F16C 1
#endif

namespace earshot::base {
namespace {

constexpr uint32_t f32_exponent_mask = 0x7f800000;
constexpr uint32_t f32_abs_mask = 0x7fffffff;
constexpr uint32_t f16_smallest_normal_as_f32 = 0x38800000;  // 2^-14
constexpr uint32_t f16_overflow_as_f32 = 0x477ff000;  // 65520: halfway past 65504, rounds to inf
constexpr uint32_t f16_rebias_as_f32 = 0x38000000;    // (127 - 15) << 23

}  // namespace

float f16_to_f32(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1f;
    const uint32_t mantissa = bits & 0x3ff;
    if (exponent == 0) {
        // Zero or subnormal: mantissa x 2^-24, exact in f32.
        const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
        return sign != 0 ? -magnitude : magnitude;
    }
    if (exponent == 0x1f) {
        return std::bit_cast<float>(sign | f32_exponent_mask | (mantissa << 13));
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float bf16_to_f32(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint16_t f32_to_f16(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
    const uint32_t abs = bits & f32_abs_mask;
    if (abs >= f32_exponent_mask) {
        if (abs == f32_exponent_mask) return static_cast<uint16_t>(sign | 0x7c00);  // infinity
        return static_cast<uint16_t>(sign | 0x7e00 | ((abs >> 13) & 0x3ff));        // quiet NaN
    }
    if (abs >= f16_overflow_as_f32) {
        return static_cast<uint16_t>(sign | 0x7c00);
    }
    if (abs < f16_smallest_normal_as_f32) {
        // Subnormal result: the value in units of 2^-24 is m x 2^(e - 126) with m the 24-bit
        // significand; shift right by 126 - e with round-to-nearest-even.
        const uint32_t exponent = abs >> 23;
        const uint32_t shift = 126 - exponent;
        if (exponent == 0 || shift > 24) return sign;
        const uint32_t significand = (abs & 0x7fffff) | 0x800000;
        uint32_t result = significand >> shift;
        const uint32_t rest = significand & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (result & 1) != 0)) ++result;
        return static_cast<uint16_t>(sign | result);
    }
    uint32_t result = (abs - f16_rebias_as_f32) >> 13;
    const uint32_t rest = abs & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (result & 1) != 0)) ++result;  // may carry: fine
    return static_cast<uint16_t>(sign | result);
}

namespace {

#if defined(EARSHOT_HALF_F16C)
// VCVTPS2PH with the rounding given in the instruction (nearest even), not MXCSR's.
__attribute__((target("avx,f16c"))) void narrow_f16c(const float* values, uint16_t* bits,
                                                     size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i half = _mm256_cvtps_ph(_mm256_loadu_ps(values + i),
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(bits + i), half);
    }
    for (; i < n; ++i) bits[i] = f32_to_f16(values[i]);
}

bool has_f16c() {
    static const bool supported = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    return supported;
}
#endif

}  // namespace

void narrow_to_f16(std::span<const float> values, std::span<uint16_t> bits) {
    if (bits.size() < values.size()) {
        throw std::invalid_argument("narrow_to_f16: " + std::to_string(values.size()) +
                                    " values into room for " + std::to_string(bits.size()));
    }
#if defined(EARSHOT_HALF_F16C)
    if (has_f16c()) {
        narrow_f16c(values.data(), bits.data(), values.size());
        return;
    }
#endif
    for (size_t i = 0; i < values.size(); ++i) bits[i] = f32_to_f16(values[i]);
}

uint16_t f32_to_bf16(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & f32_abs_mask) > f32_exponent_mask) {
        return static_cast<uint16_t>((bits >> 16) | 0x0040);  // quiet NaN, sign kept
    }
    const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace earshot::base
