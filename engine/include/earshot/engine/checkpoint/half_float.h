// IEEE binary16 (f16) and bfloat16 (bf16) <-> f32 conversions on raw bits: exact widening, and
// round-to-nearest-even narrowing.
#pragma once

#include <cstdint>

namespace earshot::checkpoint {

// Exact: subnormals, signed zeros, infinities; a NaN keeps its sign and payload bits.
float f16_to_f32(uint16_t bits);
float bf16_to_f32(uint16_t bits);

// Round to nearest, ties to even. Values past the largest finite value round to infinity (f16:
// |x| >= 65520); values below half the smallest subnormal go to a signed zero; NaN stays a quiet
// NaN with its sign.
uint16_t f32_to_f16(float value);
uint16_t f32_to_bf16(float value);

}  // namespace earshot::checkpoint
