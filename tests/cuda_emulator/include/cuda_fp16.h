// The CPU emulation's __half: IEEE binary16 bits, converted exactly as the engine converts them.
#pragma once

#include <cstdint>

#include "earshot/base/half_float.h"

struct __half {
    uint16_t bits;
};

inline __half __float2half_rn(float value) { return {earshot::base::f32_to_f16(value)}; }
inline float __half2float(__half value) { return earshot::base::f16_to_f32(value.bits); }
inline unsigned short __half_as_ushort(__half value) { return value.bits; }
