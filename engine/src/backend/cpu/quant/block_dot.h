// Dot products of one row of quantized weights (q8_0, q5_0, q5_1, q4_0, q4_1 blocks) with one row
// of activations quantized to Q8Blocks: per block an exact integer dot of the levels, times the
// two scales, plus the weight block's min times the activation block's sum for the _1 types:
//   sum over blocks b of d_w[b] d_x[b] sum_j q_w[b, j] q_x[b, j]  (+ m_w[b] sum_x[b]).
// A scalar reference, and kernels for AVX2 and for AVX-512 VNNI chosen once at run time; the
// integer parts are identical, the f32 sums of the blocks are added in a different order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backend/cpu/quant/q8_activations.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::backend::cpu {

// w_row: `blocks` blocks of the weight type; x: `blocks` activation blocks.
using BlockDot = float (*)(const std::byte* w_row, const Q8Block* x, int64_t blocks);

// out[r] = BlockDot(w_row, x + r * x_stride, blocks) for the rows r < rows (1 to
// kBlockDotMaxRows), bit for bit: the weight row is read and unpacked once for all of them (a
// beam's rows).
using BlockDotRows = void (*)(const std::byte* w_row, const Q8Block* x, int64_t x_stride, int rows,
                              int64_t blocks, float* out);
inline constexpr int kBlockDotMaxRows = 8;

enum class BlockDotIsa { reference, avx2, avx512_vnni };

// True for the types with a BlockDot: q4_0, q4_1, q5_0, q5_1, q8_0.
bool has_block_dot(checkpoint::GgmlType type);

// The kernel for `type` on `isa`; nullptr for a type without one or an ISA this build or CPU
// lacks.
BlockDot block_dot(checkpoint::GgmlType type, BlockDotIsa isa);
BlockDotRows block_dot_rows(checkpoint::GgmlType type, BlockDotIsa isa);
// The best ISA this CPU runs: avx512_vnni, avx2 or reference.
BlockDotIsa cpu_block_dot_isa();
// The variable that lowers the ISA every product uses: "avx2" or "reference" (an AVX2 + F16C
// machine's kernels, or the scalar ones, on a CPU that has more), or "avx512-vnni".
inline constexpr const char* kIsaVariable = "EARSHOT_CPU_ISA";
// `cpu` unless `asked` (the variable's value, null or empty when unset) names an ISA: that one.
// Throws std::invalid_argument naming the variable for an unknown name or an ISA above `cpu`.
BlockDotIsa chosen_block_dot_isa(BlockDotIsa cpu, const char* asked);
// The ISA every product uses (chosen once): cpu_block_dot_isa(), or what EARSHOT_CPU_ISA names.
BlockDotIsa best_block_dot_isa();
std::string_view block_dot_isa_name(BlockDotIsa isa);

// The per-ISA tables (block_dot_reference.cpp, block_dot_avx2.cpp, block_dot_avx512.cpp).
// The x86 ones are nullptr when not built for x86-64.
BlockDot reference_block_dot(checkpoint::GgmlType type);
BlockDotRows reference_block_dot_rows(checkpoint::GgmlType type);
BlockDot avx2_block_dot(checkpoint::GgmlType type);
BlockDotRows avx2_block_dot_rows(checkpoint::GgmlType type);
BlockDot avx512_vnni_block_dot(checkpoint::GgmlType type);
BlockDotRows avx512_vnni_block_dot_rows(checkpoint::GgmlType type);

}  // namespace earshot::backend::cpu
