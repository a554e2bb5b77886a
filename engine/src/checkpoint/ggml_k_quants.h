// Decoders of one 256-value ggml k-quant block (QK_K = 256) each: `block` points at the block's
// bytes (ggml-common.h block_q*_K), `y` receives 256 floats.
#pragma once

#include <cstddef>

namespace earshot::checkpoint {

void dequantize_q2_k_block(const std::byte* block, float* y);
void dequantize_q3_k_block(const std::byte* block, float* y);
void dequantize_q4_k_block(const std::byte* block, float* y);
void dequantize_q5_k_block(const std::byte* block, float* y);
void dequantize_q6_k_block(const std::byte* block, float* y);

}  // namespace earshot::checkpoint
