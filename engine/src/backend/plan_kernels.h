// What each backend launches for one plan step, for the plan listing (plan_listing.h): the CPU
// backend's op per step (cpu/cpu_plan_kernels.cpp) and the CUDA module's kernels per step
// (cuda/cuda_plan_kernels.cpp, deciding from cuda/cuda_launch_rules.h as the module does).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/cuda_step_fusions.h"
#include "earshot/engine/backend/plan.h"
#include "earshot/engine/backend/plan_listing.h"

namespace earshot::backend {

// How a backend stores the operands of a plan: the dtype of each parameter as an op reads it,
// and of the decoder caches.
enum class StoredAs { f32, f16 };

int64_t stored_bytes(StoredAs dtype);
const char* stored_name(StoredAs dtype);

// One kernel being described: operands added with the bytes they move.
class KernelDescription {
public:
    KernelDescription(std::string kernel, const PlanStep& step);

    // An operand read (written) whole, at `dtype` ("f32", "f16", "i32", "bool").
    KernelDescription& read(const std::string& dtype, const std::vector<int64_t>& shape);
    KernelDescription& write(const std::string& dtype, const std::vector<int64_t>& shape);
    // An operand of which only `bytes` move (a lookup's rows, a cache's written positions).
    KernelDescription& read_part(const std::string& dtype, const std::vector<int64_t>& shape,
                                 int64_t bytes);
    KernelDescription& write_part(const std::string& dtype, const std::vector<int64_t>& shape,
                                  int64_t bytes);
    // Bytes moved by no listed operand (an epilogue's second pass over the output).
    KernelDescription& extra_bytes(int64_t read, int64_t written);
    KernelDescription& flops(int64_t flops);

    PlanKernel done() { return std::move(kernel_); }

private:
    PlanKernel kernel_;
};

// The bytes of `shape` at `dtype`.
int64_t operand_bytes(const std::string& dtype, const std::vector<int64_t>& shape);
// An arena, input or state slot's own dtype name ("f32", "i32", "bool").
std::string slot_dtype(const Slot& slot);

// `decoder_layers.3.step > encoder_attn.attend` -> `decoder_layers[3].encoder_attn.attend`;
// `... > q_proj.forward` -> `....q_proj`.
std::string listing_scope(const std::string& plan_scope);

// The dtype a backend reads step input `input` at ("f32", "f16", "i32", "bool").
using InputDtype = std::function<std::string(size_t input)>;

// A step both backends run as one kernel named after its op (permute, gelu_erf, add, layer_norm,
// rms_norm, split_heads, merge_heads, embedding, slice_rows, take, causal_mask, iota, less_equal,
// reshape as a copy, write_span / write_at into a cache); nullopt for linear, conv1d, attention.
// A read at f16 adds "_f16" to the name of an embedding; a write into an f16 cache to a write's.
std::optional<PlanKernel> common_step_kernel(const ExecutionPlan& plan, const PlanStep& step,
                                             const InputDtype& dtype);

// Whether the CUDA module may use its fused attention (cuda_launch_rules.h; the environment).
bool cuda_fused_attention_enabled();

// The CPU backend: one op per step (a linear's epilogues are passes over its output).
// `matrices`: how linear weights and the embedding table are kept (f16 when the checkpoint's are);
// `caches`: the decoder caches (cpu_decoder_model.cpp: f16 for an f16 checkpoint).
std::vector<PlanKernel> cpu_step_kernels(const ExecutionPlan& plan, const PlanStep& step,
                                         StoredAs matrices, StoredAs caches);

// The CUDA module's step fusions as the module decides them (cuda/cuda_step_fusions.h), with
// EARSHOT_CUDA_OLD_KERNELS read as the module reads it: empty when nothing is fused.
std::vector<cuda::StepFusion> cuda_step_fusions(const ExecutionPlan& plan);

// The CUDA module: the kernels CudaDeviceModel::execute launches for step `index` (none for a
// step a fused GEMV computes; the whole group's fused GEMV for the group's first linear).
// `weight_blocks` (may be empty) names the block type a linear's weight is kept in (as
// PlanListingRequest::weight_blocks); such a weight is listed and counted at its blocks' bytes.
std::vector<PlanKernel> cuda_step_kernels(
    const ExecutionPlan& plan, size_t index, const std::vector<cuda::StepFusion>& fusions,
    bool fused_attention,
    const std::function<std::string(const std::string& path)>& weight_blocks = {});

}  // namespace earshot::backend
