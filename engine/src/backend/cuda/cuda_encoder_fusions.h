// Which plan steps the CUDA module runs as a fused encoder layer (issue 30), decided from the
// plan alone like the step fusions (cuda_step_fusions.h), for the module and `earshot debug plan`.
// An encoder layer's 27 launches become 8:
//   attention half, at out_proj: layer_norm_half (f16 [T, D]) -> one cuBLASLt GEMM for q, k and
//     v (weights [3 D, D] concatenated on the device, bias epilogue, f16 [T, 3 D] out) ->
//     flash_attention_strided (heads read in place, merged f16 [T, D] out) -> out_proj as a
//     cuBLASLt GEMM with its bias epilogue and the residual as C (beta 1), f32 out;
//   MLP half, at fc2: layer_norm_half -> fc1 as a cuBLASLt GEMM writing f16 -> bias_gelu_half
//     (f32 bias and erf GELU, in place, f16) ->
//     fc2 as a cuBLASLt GEMM with bias and residual.
// EARSHOT_CUDA_OLD_KERNELS=encoder keeps the separate launches.
#pragma once

#include <vector>

#include "backend/cuda/cuda_step_fusions.h"
#include "earshot/engine/backend/plan.h"

namespace earshot::backend::cuda {

// Marks in `fusions` (one entry per plan step, made so when empty) every half of an encoder layer
// (a LayerNorm scoped `encoder_layers[..]`; decoder layers are left to the step fusions) that fits:
// its last step encoder_attention or encoder_mlp with its steps, the others skipped. Only steps
// still alone are taken; linears whose weights `weight_kind` stores as blocks are left alone.
// Checks what the fused launch relies on: the steps contiguous (nothing else runs between
// them), the values it skips read by nothing else and not kept (`materialized`, the plan's
// outputs), the GEMM path's row count, and shapes the strided flash kernel takes.
void apply_encoder_fusions(const ExecutionPlan& plan, std::vector<StepFusion>& fusions,
                           const LinearWeightKind& weight_kind,
                           std::span<const int32_t> materialized = {});

// The scratch bytes an encoder half launched at step `index` needs (0 for any other step):
// LayerNorm's f16 output and the f16 [T, 3 D] q, k, v (attention) or f16 [T, Inner] (MLP).
int64_t encoder_fusion_scratch_bytes(const ExecutionPlan& plan, const StepFusion& fusion);

}  // namespace earshot::backend::cuda
