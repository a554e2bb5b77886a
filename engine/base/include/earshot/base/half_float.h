// IEEE binary16 (f16) and bfloat16 (bf16) <-> f32 conversions on raw bits: exact widening, and
// round-to-nearest-even narrowing.
#pragma once

#include <cstdint>
#include <span>

namespace earshot::base {

// Exact: subnormals, signed zeros, infinities; a NaN keeps its sign and payload bits.
float f16_to_f32(uint16_t bits);
float bf16_to_f32(uint16_t bits);

// Round to nearest, ties to even. Values past the largest finite value round to infinity (f16:
// |x| >= 65520); values below half the smallest subnormal go to a signed zero; NaN stays a quiet
// NaN with its sign.
uint16_t f32_to_f16(float value);
uint16_t f32_to_bf16(float value);

// bits[i] = f32_to_f16(values[i]) for every value (bits holds at least values.size()), eight at
// a time with the CPU's own conversion where it has F16C (the same IEEE rounding, so the same
// bits; checked at run time). The one-value function costs ~8 ns a value on random data (its
// rounding branch is unpredictable): writing a 30 s window's audio caches, or narrowing a
// dequantized model, in bulk.
void narrow_to_f16(std::span<const float> values, std::span<uint16_t> bits);

}  // namespace earshot::base
