// Activations quantized to 8 bits per value in blocks of 32, for the integer dot products of the
// few-row products over quantized weights (block_dot.h): what ggml does with q8_0 / q8_1
// activations, with the scale and the block's sum kept in f32.
#pragma once

#include <cstdint>

namespace earshot::backend::cpu {

// 32 activations x[j] ~ d * qs[j].
struct Q8Block {
    float d = 0.0F;    // amax / 127 of the block's values
    float sum = 0.0F;  // d x sum of qs: what the min of a q4_1 / q5_1 block multiplies
    int8_t qs[32] = {};
};

inline constexpr int64_t kQ8BlockValues = 32;

// x [k] (k a multiple of 32) -> out [k / 32]: per block d = amax / 127 and qs[j] = x[j] / d
// rounded to nearest, ties to even (all zeros for a block of zeros).
void quantize_q8_activations(const float* x, int64_t k, Q8Block* out);

}  // namespace earshot::backend::cpu
