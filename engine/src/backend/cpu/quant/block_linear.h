// Matrix products and lookups against weights kept in quantized ggml blocks (BlockMatrix), never
// expanded to f16 or f32 as a whole. Few-row products (decoder steps, beams: at most
// kHalfGemvRows rows) quantize the activations to 8 bits and run the integer block dot over
// each weight row once (Q8Blocks for q8_0, q5_0, q5_1, q4_0, q4_1; Q8KBlocks for q2_k .. q6_k);
// many-row products (the encoder, prefill) decode one panel of rows at a time to f32 and hand it to
// OpenBLAS's sgemm, as linear_f16 widens its panels. Every output value is computed by one thread
// with the same arithmetic, whatever the number of threads.
#pragma once

#include <cstdint>

#include "backend/cpu/cpu_threads.h"
#include "backend/cpu/quant/block_dot.h"
#include "backend/cpu/quant/block_matrix.h"

namespace earshot::backend::cpu {

// y [m, n] = x [m, k] * w^T (w: n rows of k values in blocks) (+ bias [n] when not null), on
// `pool`; `isa`: the block dot kernels the few-row product uses.
void linear_blocks(const float* x, const BlockMatrix& w, const float* bias, float* y, int64_t m,
                   int64_t k, int64_t n, ThreadPool& pool = ThreadPool::current(),
                   BlockDotIsa isa = best_block_dot_isa());

// ids [count] into table (V rows of H values in blocks) -> y [count, H], each row decoded; an id
// outside [0, V) throws std::out_of_range.
void embedding_blocks(const int32_t* ids, const BlockMatrix& table, float* y, int64_t count);

// Rows [first, first + rows) of w decoded to f32 -> out [rows, row_values].
void decode_block_rows(const BlockMatrix& w, int64_t first, int64_t rows, float* out);

}  // namespace earshot::backend::cpu
