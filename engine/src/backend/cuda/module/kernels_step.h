// A decoder step's memory-bound kernels (issue 30): the multi-column GEMV and the one-query
// attention split over the keys. They replace gemv_f16 and attend_one_query (kernels.h), which
// stay for EARSHOT_CUDA_OLD_KERNELS, so that one process can compare old and new.
#pragma once

#include "backend/cuda/fused_gemv.h"
#include "kernels.h"

namespace earshot::backend::cuda::kernels {

// y [m, n] = epilogue(x [m, k] w^T (+ bias [n])), w [n, k] f16, 1 <= m <= kMaxGemvRows, as
// gemv_f16, at memory speed (kernels_gemv_columns.cu): two or four columns per warp, x read once
// per 8 elements for all of them, several 16-byte weight loads in flight. Falls back to gemv_f16
// when k % 8 != 0 or x or w is not 16-byte aligned.
void gemv_f16_columns(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                      int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream);

// The fused GEMV (backend/cuda/fused_gemv.h, kernels_gemv_fused.cu): x [m, k] read once into
// shared memory, its LayerNorm applied there when given, then up to three linears of it (f32
// outputs, or f16 columns written into a decoder cache at *pos). False when fused_gemv_fits
// (cuda_launch_rules.h) refuses m and k, a weight is not 16-byte aligned, or a cache output is
// incomplete; then nothing is launched.
bool gemv_f16_fused(const FusedGemv& args, cudaStream_t stream);

// Weights kept as quantized blocks on the device (issue 34): the types whose blocks the GEMVs read
// directly, by their ggml_type ids (ggml.h), 32 values per block.
inline constexpr int64_t kBlockValues = 32;
inline constexpr int32_t kBlockTypeQ4_0 = 2;
inline constexpr int32_t kBlockTypeQ5_0 = 6;
inline constexpr int32_t kBlockTypeQ8_0 = 8;
// Bytes of one block of a type the GEMVs read (ggml-common.h); 0 for any other id.
constexpr int64_t gemv_block_bytes(int32_t type) {
    return type == kBlockTypeQ8_0   ? 34
           : type == kBlockTypeQ5_0 ? 22
           : type == kBlockTypeQ4_0 ? 18
                                    : 0;
}

// y [m, n] = epilogue(x [m, k] w^T (+ bias [n])) for w [n, k] as k / 32 blocks of `block_type`
// per row (kernels_gemv_blocks.cu): x quantized to 8 bits per block as the CPU backend does it,
// exact integer dots per block, two or four columns per warp, 1 <= m <= kMaxGemvRows. False
// (nothing launched) for a type without a GEMV, k % 32 != 0 or w not 2-byte aligned.
bool gemv_blocks(const float* x, const void* w, int32_t block_type, const float* bias, float* y,
                 int64_t m, int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream);
// y [n_blocks x 32] f16 = the values of n_blocks blocks of `block_type` (d x level rounded to
// f16), for the GEMMs of many rows on block weights. False for a type without a GEMV.
bool dequantize_blocks_f16(const void* blocks, int32_t block_type, uint16_t* y, int64_t n_blocks,
                           cudaStream_t stream);

// One query split over the keys (kernels_attend_split_keys.cu), one launch: blocks of
// (batch-head, 64 keys) write partial softmax results into `partials` (split_keys_partial_floats
// floats, cuda_launch_rules.h) and count themselves in done [BH] (zero before, zero after); the
// last block of each (batch, head) merges them into y [BH, Dh]. Same inputs and result as
// attend_one_query, any K; keys the mask hides are never read. False when attend_split_keys_fits
// refuses BH or Dh (then nothing is launched). The f16 one reads k, v [kv_rows, K, Dh] (kernels.h).
bool attend_one_query_split_keys(const float* q, const float* k, const float* v,
                                 const uint8_t* mask, float* y, float* partials, unsigned* done,
                                 int64_t bh, int64_t k_len, int64_t dh, float scale,
                                 cudaStream_t stream);
bool attend_one_query_split_keys(const float* q, const uint16_t* k, const uint16_t* v,
                                 const uint8_t* mask, float* y, float* partials, unsigned* done,
                                 int64_t bh, int64_t k_len, int64_t dh, float scale,
                                 cudaStream_t stream, int64_t kv_rows = 0);

}  // namespace earshot::backend::cuda::kernels
