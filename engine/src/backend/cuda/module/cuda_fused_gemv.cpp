// CudaDeviceModel::fused_gemv: a group of plan steps (cuda_step_fusions.h) launched as one fused
// GEMV (kernels_gemv_fused.cu), its operands read from the plan as execute() reads them.
#include <stdexcept>

#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

void CudaDeviceModel::fused_gemv(const Prepared& prepared, size_t index,
                                 const std::vector<void*>& ptr) {
    const ExecutionPlan& plan = *prepared.plan;
    const StepFusion& fusion = prepared.fusions[index];
    // Input i of step t: its param pointer (f16 or f32 as the op reads it), else its slot's.
    auto operand = [&](int64_t t, size_t i) -> const void* {
        const auto step = static_cast<size_t>(t);
        const void* param = prepared.params[step][i];
        return param != nullptr ? param : ptr[static_cast<size_t>(plan.steps[step].inputs.at(i))];
    };
    auto slot = [&](int64_t t, size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(plan.steps[static_cast<size_t>(t)].inputs.at(i))];
    };
    FusedGemv args;
    args.block_type = prepared.weight_blocks[static_cast<size_t>(fusion.linears.at(0).step)];
    const int64_t source = fusion.layer_norm >= 0 ? fusion.layer_norm : fusion.linears.at(0).step;
    const Slot& x = slot(source, 0);
    args.x = static_cast<const float*>(operand(source, 0));
    args.k = x.shape.back();
    args.m = count(x.shape) / args.k;
    if (fusion.layer_norm >= 0) {
        args.norm_weight = static_cast<const float*>(operand(fusion.layer_norm, 1));
        args.norm_bias = static_cast<const float*>(operand(fusion.layer_norm, 2));
        args.norm_eps = static_cast<float>(plan.steps[static_cast<size_t>(fusion.layer_norm)].eps);
    }
    for (const FusedLinearStep& l : fusion.linears) {
        const PlanStep& step = plan.steps[static_cast<size_t>(l.step)];
        FusedLinear& linear = args.linears[args.linear_count++];
        linear.w = static_cast<const uint16_t*>(operand(l.step, 1));
        linear.n = slot(l.step, 1).shape.at(0);
        if (const auto bias = linear_bias_input(step)) {
            linear.bias = static_cast<const float*>(operand(l.step, *bias));
        }
        linear.gelu = linear_gelu_epilogue(step);
        if (const auto residual = linear_residual_input(step)) {
            linear.residual = static_cast<const float*>(operand(l.step, *residual));
        }
        if (l.cache_write < 0) {
            linear.y = static_cast<float*>(ptr[static_cast<size_t>(step.output)]);
            continue;
        }
        const Slot& cache = slot(l.cache_write, 0);  // [m, H, T, Dh]
        linear.cache = static_cast<uint16_t*>(
            ptr[static_cast<size_t>(plan.steps[static_cast<size_t>(l.cache_write)].output)]);
        linear.heads = cache.shape[1];
        linear.positions = cache.shape[2];
        linear.dh = cache.shape[3];
        linear.pos = static_cast<const int32_t*>(operand(l.cache_write, 2));
    }
    if (!kernels::gemv_f16_fused(args, stream_)) {
        throw std::logic_error("gemv_f16_fused refused a group the step fusions let through");
    }
}

}  // namespace earshot::backend::cuda
