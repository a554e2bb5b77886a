// Decoding of the ggml k-quant super-blocks (q2_k .. q6_k): 256 values in sub-blocks of 16 or 32,
// each with a small integer scale (and min) relative to the super-block's f16 d (and dmin).
// Layouts and value order from ggml-common.h and ggml's dequantize_row_q*_K.
#include "ggml_k_quants.h"

#include <cstdint>
#include <cstring>

#include "earshot/base/half_float.h"

namespace earshot::checkpoint {
namespace {

float read_f16(const std::byte* at) {
    uint16_t bits = 0;
    std::memcpy(&bits, at, sizeof(bits));
    return base::f16_to_f32(bits);
}

const uint8_t* bytes_at(const std::byte* at) { return reinterpret_cast<const uint8_t*>(at); }

// The 6-bit scale and min of sub-block j (0..7) packed in the 12 scale bytes of q4_k / q5_k:
// j < 4: scale = s[j] & 63, min = s[j + 4] & 63; j >= 4: the low four bits from s[j + 4] (scale:
// low nibble, min: high nibble) and the top two from bits 6..7 of s[j - 4] (scale) / s[j] (min).
void scale_min_k4(int j, const uint8_t* s, int& scale, int& min) {
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
        min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

}  // namespace

// q2_k [84 bytes]: scales[16] | qs[64] | d | dmin. Sub-block i (16 values) has scale
// d * (scales[i] & 15) and min dmin * (scales[i] >> 4); value = scale * q - min, q 2 bits.
// Values 0..127 come from qs[0..31] and 128..255 from qs[32..63]: for shift s = 0, 2, 4, 6 in
// turn, 16 values from bits s of qs[0..15], then 16 from bits s of qs[16..31].
void dequantize_q2_k_block(const std::byte* block, float* y) {
    const uint8_t* scales = bytes_at(block);
    const uint8_t* q = bytes_at(block + 16);
    const float d = read_f16(block + 80);
    const float dmin = read_f16(block + 82);
    int sub = 0;
    for (int half = 0; half < 2; ++half, q += 32) {
        for (int shift = 0; shift < 8; shift += 2) {
            for (int part = 0; part < 2; ++part, ++sub) {
                const float scale = d * static_cast<float>(scales[sub] & 0x0f);
                const float min = dmin * static_cast<float>(scales[sub] >> 4);
                for (int l = 0; l < 16; ++l) {
                    *y++ = scale * static_cast<float>((q[16 * part + l] >> shift) & 3) - min;
                }
            }
        }
    }
}

// q3_k [110 bytes]: hmask[32] | qs[64] | scales[12] | d. Sixteen 6-bit signed scales (stored
// + 32): scale i has its low four bits in scales[i] & 15 (i < 8) or scales[i - 8] >> 4 (i >= 8)
// and its top two in bits 2 * (i / 4) of scales[8 + i % 4]. Values in the q2_k order, each q =
// 2 low bits from qs minus 4 when its bit of hmask is clear (hmask bit b = the pass over
// shifts, 0..7, of the value's byte index l within 0..31).
void dequantize_q3_k_block(const std::byte* block, float* y) {
    const uint8_t* hmask = bytes_at(block);
    const uint8_t* q = bytes_at(block + 32);
    const uint8_t* packed = bytes_at(block + 96);
    const float d = read_f16(block + 108);
    int scales[16];
    for (int i = 0; i < 16; ++i) {
        const int low = i < 8 ? (packed[i] & 0x0f) : (packed[i - 8] >> 4);
        const int high = (packed[8 + i % 4] >> (2 * (i / 4))) & 3;
        scales[i] = (low | high << 4) - 32;
    }
    int sub = 0;
    int bit = 0;
    for (int half = 0; half < 2; ++half, q += 32) {
        for (int shift = 0; shift < 8; shift += 2, ++bit) {
            for (int part = 0; part < 2; ++part, ++sub) {
                const float scale = d * static_cast<float>(scales[sub]);
                for (int l = 0; l < 16; ++l) {
                    const int index = 16 * part + l;
                    const int low = (q[index] >> shift) & 3;
                    const int value = low - (((hmask[index] >> bit) & 1) != 0 ? 0 : 4);
                    *y++ = scale * static_cast<float>(value);
                }
            }
        }
    }
}

// q4_k [144 bytes]: d | dmin | scales[12] | qs[128]. Eight sub-blocks of 32 with 6-bit scale
// and min (scale_min_k4); value = d * scale * q - dmin * min. Per 64 values j = 0..3: the low
// nibbles of qs[32 j .. 32 j + 31] (sub-block 2 j), then their high nibbles (sub-block 2 j + 1).
void dequantize_q4_k_block(const std::byte* block, float* y) {
    const float d = read_f16(block);
    const float dmin = read_f16(block + 2);
    const uint8_t* packed = bytes_at(block + 4);
    const uint8_t* q = bytes_at(block + 16);
    for (int j = 0; j < 4; ++j, q += 32) {
        for (int part = 0; part < 2; ++part) {
            int scale = 0;
            int min = 0;
            scale_min_k4(2 * j + part, packed, scale, min);
            const float step = d * static_cast<float>(scale);
            const float offset = dmin * static_cast<float>(min);
            for (int l = 0; l < 32; ++l) {
                const int nibble = part == 0 ? (q[l] & 0x0f) : (q[l] >> 4);
                *y++ = step * static_cast<float>(nibble) - offset;
            }
        }
    }
}

// q5_k [176 bytes]: d | dmin | scales[12] | qh[32] | qs[128]. As q4_k with a fifth bit: value
// index 32 k + l (sub-block k = 0..7) takes bit k of qh[l] as 16.
void dequantize_q5_k_block(const std::byte* block, float* y) {
    const float d = read_f16(block);
    const float dmin = read_f16(block + 2);
    const uint8_t* packed = bytes_at(block + 4);
    const uint8_t* qh = bytes_at(block + 16);
    const uint8_t* q = bytes_at(block + 48);
    for (int j = 0; j < 4; ++j, q += 32) {
        for (int part = 0; part < 2; ++part) {
            const int sub = 2 * j + part;
            int scale = 0;
            int min = 0;
            scale_min_k4(sub, packed, scale, min);
            const float step = d * static_cast<float>(scale);
            const float offset = dmin * static_cast<float>(min);
            for (int l = 0; l < 32; ++l) {
                const int nibble = part == 0 ? (q[l] & 0x0f) : (q[l] >> 4);
                const int value = nibble | ((qh[l] >> sub) & 1) << 4;
                *y++ = step * static_cast<float>(value) - offset;
            }
        }
    }
}

// q6_k [210 bytes]: ql[128] | qh[64] | scales[16] int8 | d. Per 128 values n = 0, 1 (ql + 64 n,
// qh + 32 n, scales + 8 n), for l = 0..31, value n*128 + 32 k + l (k = 0..3) is
// (nibble | 2 bits of qh[l] at 2 k << 4) - 32, times d * scales[l / 16 + 2 k]; the nibble is
// the low one of ql[l] (k = 0), ql[l + 32] (k = 1), the high one of ql[l] (k = 2), ql[l + 32]
// (k = 3).
void dequantize_q6_k_block(const std::byte* block, float* y) {
    const uint8_t* ql = bytes_at(block);
    const uint8_t* qh = bytes_at(block + 128);
    const uint8_t* scales = bytes_at(block + 192);  // int8 each
    const float d = read_f16(block + 208);
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, scales += 8, y += 128) {
        for (int l = 0; l < 32; ++l) {
            for (int k = 0; k < 4; ++k) {
                const uint8_t source = ql[l + 32 * (k % 2)];
                const int nibble = k < 2 ? (source & 0x0f) : (source >> 4);
                const int value = (nibble | ((qh[l] >> (2 * k)) & 3) << 4) - 32;
                const auto scale = static_cast<int8_t>(scales[l / 16 + 2 * k]);
                y[32 * k + l] = d * static_cast<float>(scale) * static_cast<float>(value);
            }
        }
    }
}

}  // namespace earshot::checkpoint
