// Which plan steps the CUDA module runs as one fused GEMV (fused_gemv.h): a LayerNorm on the GEMV
// path together with the (up to three) linears that read its output, each linear's write into a
// decoder cache at `pos` folded in where its only use is that write. A decoder layer's step then
// launches 8 kernels instead of 15: q, k and v with their LayerNorm and cache writes as one, the
// self-attention, its out_proj, the cross q with its LayerNorm, the cross-attention, its
// out_proj, fc1 with its LayerNorm, fc2. Plain C++ over the plan: the module (prepare) and
// `earshot debug plan` (cuda_plan_kernels.cpp) decide from this one function.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/plan.h"

namespace earshot::backend::cuda {

// A linear of a fused GEMV, and the write_at step whose cache write it does (-1: it writes its
// own output).
struct FusedLinearStep {
    int64_t step = -1;
    int64_t cache_write = -1;
};

// An encoder layer's half fused by cuda_encoder_fusions.h: its steps (-1 where not part).
struct EncoderLayerSteps {
    int64_t layer_norm = -1;
    int64_t q = -1, k = -1, v = -1;  // the attention half's linears
    int64_t attention = -1;
    int64_t out_proj = -1;       // the attention half's last step
    int64_t fc1 = -1, fc2 = -1;  // the MLP half's linears, fc2 its last step
};

// One decoder layer's cross key or value in listen, fused by cuda_cross_kv_fusion.h: the linear
// of the audio states, its split into heads and its write into the f16 cross cache.
struct CrossKvWrite {
    int64_t linear = -1, split = -1, write = -1;
};

struct StepFusion {
    enum class Role {
        alone,              // launched as execute() always has
        fused_gemv,         // the last linear of a group: launches the fused GEMV for all of it
        skipped,            // computed by the group's fused GEMV (a LayerNorm, an earlier linear, a
                            // cache write), or by an encoder half's launch
        encoder_attention,  // out_proj: LayerNorm, q k v, attention and out_proj launched here
        encoder_mlp,        // fc2: LayerNorm, fc1 and fc2 launched here
        cross_kv,           // listen's last cross cache write: every layer's cross k and v here
    };
    Role role = Role::alone;
    int64_t layer_norm = -1;               // fused_gemv: the LayerNorm step folded in
    std::vector<FusedLinearStep> linears;  // fused_gemv: in plan order, this step last
    EncoderLayerSteps encoder;             // encoder_attention / encoder_mlp
    std::vector<CrossKvWrite> cross_kv;    // cross_kv: in plan order, this step's write last
};

// One entry per plan step. `materialized`: slots whose values must exist after their step (a
// tapped value, an entry's result); no fusion skips writing them. Checks everything a fusion
// relies on (the LayerNorm input intact until the launch, no step in between touching a moved
// output or a cache, shapes that the fused GEMV takes) and leaves a step alone otherwise.
std::vector<StepFusion> plan_step_fusions(const ExecutionPlan& plan,
                                          std::span<const int32_t> materialized = {});

// How the module stores the weight of linear step `step`: "" for f16, else its blocks' type.
using LinearWeightKind = std::function<std::string(int64_t step)>;

// Every fused group of `fusions` whose linears' weights are not stored alike back to separate
// launches (each of its steps alone): one fused GEMV reads one kind of weights (f16, or blocks of
// one type). The module and the plan listing both apply it after plan_step_fusions.
void unfuse_mixed_weights(std::vector<StepFusion>& fusions, const LinearWeightKind& weight_kind);

}  // namespace earshot::backend::cuda
