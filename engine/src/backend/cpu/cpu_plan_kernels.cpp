// The CPU backend's work for one plan step, as CpuWhisper's interpreter runs it: one op per step
// (a view runs nothing), f16 matrices read as f16 by the products and lookups (cpu_weights.h),
// every other parameter as f32, the caches at their storage; a linear's epilogues are passes
// over its output.
#include <stdexcept>

#include "backend/plan_kernels.h"

namespace earshot::backend {

using program::OpKind;

std::vector<PlanKernel> cpu_step_kernels(const ExecutionPlan& plan, const PlanStep& step,
                                         StoredAs matrices, StoredAs caches) {
    if (step.alias) return {};
    auto in = [&](size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))];
    };
    auto present = [&](size_t i) { return i < step.inputs.size() && in(i).kind != SlotKind::none; };
    // What cpu_whisper.cpp's reads_half says: the weight of a linear, the table of an embedding.
    const InputDtype dtype = [&](size_t i) -> std::string {
        const Slot& slot = in(i);
        if (slot.kind == SlotKind::param) {
            const bool product =
                i == 1 && (step.kind == OpKind::linear || step.kind == OpKind::embedding);
            return product ? stored_name(matrices) : "f32";
        }
        if (slot.kind == SlotKind::state) return stored_name(caches);
        return slot_dtype(slot);
    };
    if (auto common = common_step_kernel(plan, step, dtype)) return {std::move(*common)};
    const Slot& out = plan.slots[static_cast<size_t>(step.output)];
    switch (step.kind) {
        case OpKind::conv1d: {
            const auto& xs = in(0).shape;  // [B, L, Cin]
            const auto& ws = in(1).shape;  // [Cout, Cin, K]
            KernelDescription conv("conv1d", step);
            conv.read("f32", xs).read(dtype(1), ws);
            if (present(2)) conv.read(dtype(2), in(2).shape);
            const int64_t flops = 2 * xs[0] * out.shape[1] * ws[0] * ws[1] * ws[2];
            return {conv.write("f32", out.shape).flops(flops).done()};
        }
        case OpKind::linear: {
            const auto& xs = in(0).shape;  // [.., K]
            const auto& ws = in(1).shape;  // [N, K]
            const int64_t k = xs.back();
            const int64_t n = ws.at(0);
            int64_t m = 1;
            for (int64_t d : xs) m *= d;
            m /= k;
            const auto bias = linear_bias_input(step);
            const auto residual = linear_residual_input(step);
            const bool gelu = linear_gelu_epilogue(step);
            const std::string weights = dtype(1);
            KernelDescription linear(std::string(weights == "f16" ? "linear_f16" : "linear") +
                                         (gelu ? "+gelu" : "") + (residual ? "+residual" : ""),
                                     step);
            linear.read("f32", xs).read(weights, ws);
            if (bias && present(*bias)) linear.read(dtype(*bias), in(*bias).shape);
            // Each epilogue is one more pass over the output [m, n]: read and written again.
            const int64_t output_bytes = m * n * 4;
            if (gelu) linear.extra_bytes(output_bytes, output_bytes);
            if (residual) {
                linear.read("f32", in(*residual).shape).extra_bytes(output_bytes, output_bytes);
            }
            return {linear.write("f32", out.shape).flops(2 * m * k * n).done()};
        }
        case OpKind::attention: {
            const auto& qs = in(0).shape;  // [B, H, Q, Dh]
            const auto& ks = in(1).shape;  // [B, H, K, Dh]
            const bool half = dtype(1) == "f16";
            KernelDescription attention(half ? "attention_f16kv" : "attention", step);
            attention.read("f32", qs).read(dtype(1), ks).read(dtype(2), in(2).shape);
            if (present(3)) attention.read(dtype(3), in(3).shape);
            const int64_t flops = 4 * qs[0] * qs[1] * qs[2] * ks[2] * qs[3];
            return {attention.write("f32", out.shape).flops(flops).done()};
        }
        default:
            break;
    }
    throw std::logic_error("the CPU plan listing has no kernel for op " +
                           std::string(program::op_kind_name(step.kind)));
}

}  // namespace earshot::backend
