// Quantizing f32 values into ggml's legacy 32-value blocks (q4_0, q4_1, q5_0, q5_1, q8_0) the way
// ggml's reference quantizers do, so that dequantize_ggml_blocks (ggml_blocks.h) reads them back.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::checkpoint {

// True for the types quantize_ggml_blocks writes: q4_0, q4_1, q5_0, q5_1, q8_0.
bool can_quantize_to(GgmlType type);

// The blocks of `values` (a whole number of 32-value blocks, in row order) in `type`, per block:
// - q8_0: d = amax / 127, q = round(x / d) in -127..127;
// - q4_0 / q5_0: d = max / -8 (-16) where max is the value of largest magnitude with its sign,
//   q = floor(x / d + 8.5 (16.5)) clamped to 0..15 (31), stored q (value (q - 8 (16)) d);
// - q4_1 / q5_1: d = (max - min) / 15 (31), m = min, q = round((x - min) / d) in 0..15 (31);
// d and m stored as f16, the levels computed with the f32 d (ggml-quants.c quantize_row_*_ref).
// std::invalid_argument for another type or a count that is not whole blocks.
std::vector<std::byte> quantize_ggml_blocks(GgmlType type, std::span<const float> values);

// The largest |x - decoded x| quantize_ggml_blocks allows for a value of a block whose largest |x|
// is 1: the level step / 2 (a full step for the opposite-sign extreme of q4_0 and q5_0, which has
// one level fewer on that side), plus the f16 rounding of d (and of m) times the largest level.
// It holds while d is a normal f16 (|d| >= 2^-14, so amax >= 127 x 2^-14 for q8_0); a subnormal d
// rounds to an absolute 2^-25.
double ggml_quantize_error_bound(GgmlType type);

}  // namespace earshot::checkpoint
