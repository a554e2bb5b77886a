// The CPU emulation's __half: IEEE binary16 bits, converted exactly as the engine converts them.
#pragma once

#include <array>
#include <cstdint>

#include "earshot/base/half_float.h"

struct __half {
    uint16_t bits;
};

inline __half __float2half_rn(float value) { return {earshot::base::f32_to_f16(value)}; }
// From a table of every half's value, built once by the engine's conversion: the emulated
// kernels' most frequent call (about a third of an emulated whole-model run's time went to
// calling the conversion itself).
inline float __half2float(__half value) {
    static const std::array<float, 65536> table = [] {
        std::array<float, 65536> values{};
        for (uint32_t bits = 0; bits < values.size(); ++bits) {
            values[bits] = earshot::base::f16_to_f32(static_cast<uint16_t>(bits));
        }
        return values;
    }();
    return table[value.bits];
}
inline unsigned short __half_as_ushort(__half value) { return value.bits; }
