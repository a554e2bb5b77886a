// Dot products of one row of k-quant weights (q2_k .. q6_k super-blocks of 256 values) with one
// row of activations quantized to Q8KBlocks: per super-block an exact integer sum of each
// sub-block's level dot times its small integer scale, times d_w d_x, less the mins (q2_k, q4_k,
// q5_k: dmin_w d_x sum of min x the sub-block's activation sum) or the level offsets (q3_k: 4,
// q6_k: 32, folded into the integer sum through the activation sums):
//   sum over super-blocks b of d_w d_x sum_i s_i sum_j q_ij x_ij  (- dmin_w d_x sum_i m_i bsum_i).
// A scalar reference and the x86 kernels (block_dot_k_x86.h) for AVX2 and AVX-512, chosen as the
// legacy types' are (block_dot.h); the integer parts are identical, the f32 sums differ in order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backend/cpu/quant/block_dot.h"
#include "backend/cpu/quant/q8_activations.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::backend::cpu {

// w_row: `blocks` super-blocks of the weight type; x: `blocks` activation blocks.
using KBlockDot = float (*)(const std::byte* w_row, const Q8KBlock* x, int64_t blocks);

// out[r] = KBlockDot(w_row, x + r * x_stride, blocks) for the rows r < rows (1 to
// kKBlockDotMaxRows), bit for bit: each super-block is unpacked once for all of them.
using KBlockDotRows = void (*)(const std::byte* w_row, const Q8KBlock* x, int64_t x_stride,
                               int rows, int64_t blocks, float* out);
inline constexpr int kKBlockDotMaxRows = 8;

// True for the types with a KBlockDot: q2_k, q3_k, q4_k, q5_k, q6_k.
bool has_k_block_dot(checkpoint::GgmlType type);

// The kernel for `type` on `isa` (best_block_dot_isa() for this CPU's best); nullptr for a type
// without one or an ISA this build or CPU lacks.
KBlockDot k_block_dot(checkpoint::GgmlType type, BlockDotIsa isa);
KBlockDotRows k_block_dot_rows(checkpoint::GgmlType type, BlockDotIsa isa);

// The per-ISA tables (block_dot_k_reference.cpp, block_dot_avx2.cpp, block_dot_avx512.cpp).
KBlockDot reference_k_block_dot(checkpoint::GgmlType type);
KBlockDotRows reference_k_block_dot_rows(checkpoint::GgmlType type);
KBlockDot avx2_k_block_dot(checkpoint::GgmlType type);
KBlockDotRows avx2_k_block_dot_rows(checkpoint::GgmlType type);
KBlockDot avx512_vnni_k_block_dot(checkpoint::GgmlType type);
KBlockDotRows avx512_vnni_k_block_dot_rows(checkpoint::GgmlType type);

}  // namespace earshot::backend::cpu
