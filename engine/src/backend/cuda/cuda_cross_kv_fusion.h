// Which plan steps the CUDA module runs as listen's fused cross keys and values (issue 30),
// decided from the plan alone like the encoder fusions (cuda_encoder_fusions.h), for the module
// and `earshot debug plan`. Each decoder layer's cross k and v were 9 launches (to_half, GEMM,
// bias, split_heads and the f16 cache write, twice less k's bias). Now the audio states are
// converted to f16 once, and one cuBLASLt GEMM writes every layer's k and v: the module keeps
// the cross caches in one allocation, [caches][rows][H, Audio, Dh], and the cross k/v weights
// and biases joined, [caches][D, D] and [caches][D], so with one row per cache every (cache,
// head) block is one batch of one strided-batched GEMM: 2 launches for L layers instead of 9 L.
// Where the writes do not line up so (several audio rows, caches of different shapes or start
// positions) each cache is written by its own GEMM batched over its heads: 2 L B + 1.
// EARSHOT_CUDA_OLD_KERNELS=cross_kv keeps the separate launches.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/cuda_step_fusions.h"
#include "earshot/engine/backend/plan.h"

namespace earshot::backend::cuda {

// Marks in `fusions` (one entry per plan step, made so when empty) every run of cross cache
// writes that fits: a linear of one value x [B, A, D] (f16 weight [D, D], GEMM path, no GELU or
// residual), its split_heads [B, H, A, Dh] and a write_span of all of it at position `start` into
// an f16 cache [B, H, Audio, Dh] named `.cross_k` or `.cross_v`; the values in between read by
// nothing else and not kept (`materialized`, the plan's outputs); the runs' steps contiguous. The
// run's last write launches them all (Role::cross_kv), the others are skipped. Linears whose
// weights `weight_kind` stores as blocks are left alone.
void apply_cross_kv_fusions(const ExecutionPlan& plan, std::vector<StepFusion>& fusions,
                            const LinearWeightKind& weight_kind,
                            std::span<const int32_t> materialized = {});

// Whether the fused run launched at a step (Role::cross_kv) is one GEMM: one audio row
// (x [1, A, D]; with more the caches' rows come between one cache's heads and the next
// cache's), every cache [1, H, Audio, Dh] alike and written at the same start. The module also
// checks that the caches lie one after another in its cross caches allocation.
bool cross_kv_one_gemm(const ExecutionPlan& plan, const StepFusion& fusion);

// The scratch bytes the fused run launched at a step needs (0 for any other step): x as f16
// [B A, D].
int64_t cross_kv_scratch_bytes(const ExecutionPlan& plan, const StepFusion& fusion);

}  // namespace earshot::backend::cuda
