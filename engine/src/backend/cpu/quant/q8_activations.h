// Activations quantized to 8 bits per value, for the integer dot products of the few-row products
// over quantized weights: in blocks of 32 for the legacy types (block_dot.h), what ggml does with
// q8_0 / q8_1 activations, with the scale and the block's sum kept in f32; in blocks of 256 with
// the sums of every 16 levels for the k-quants (block_dot_k.h), what ggml does with q8_K.
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

// 256 activations x[j] ~ d * qs[j], with bsums[i] = sum of qs[16 i .. 16 i + 15]: what the mins
// and offsets of a k-quant super-block's sub-blocks (16 or 32 values) multiply.
struct Q8KBlock {
    float d = 0.0F;          // amax / 127 of the block's values
    int16_t bsums[16] = {};  // |bsums| <= 16 x 127
    int8_t qs[256] = {};
};

inline constexpr int64_t kQ8KBlockValues = 256;

// x [k] (k a multiple of 256) -> out [k / 256], each level rounded as quantize_q8_activations
// rounds them.
void quantize_q8k_activations(const float* x, int64_t k, Q8KBlock* out);

}  // namespace earshot::backend::cpu
