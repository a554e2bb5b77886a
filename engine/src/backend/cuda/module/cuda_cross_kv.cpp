// CudaDeviceModel's fused cross keys and values of listen (cuda_cross_kv_fusion.h): the audio
// states x [B, A, D] converted to f16 once, then per cache (and batch row) one cuBLASLt GEMM
// batched over the heads writes [A, Dh] of each head straight into the f16 cache
// [B, H, Audio, Dh] at its start position, v's bias (f16) in the epilogue.
#include <string>
#include <vector>

#include "backend/cuda/cuda_cross_kv_fusion.h"
#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_lt_gemm.h"
#include "earshot/base/half_float.h"
#include "kernels.h"

namespace earshot::backend::cuda {

namespace {

// The bias input of linear step `linear`, when it has one.
const Slot* bias_slot(const ExecutionPlan& plan, const PlanStep& linear) {
    const auto b = linear_bias_input(linear);
    if (!b) return nullptr;
    const Slot& slot = plan.slots[static_cast<size_t>(linear.inputs.at(*b))];
    return slot.kind == SlotKind::none ? nullptr : &slot;
}

}  // namespace

void CudaDeviceModel::prepare_cross_kv(const Prepared& prepared, size_t index) {
    const ExecutionPlan& plan = *prepared.plan;
    for (const CrossKvWrite& w : prepared.fusions.at(index).cross_kv) {
        const PlanStep& linear = plan.steps[static_cast<size_t>(w.linear)];
        const Slot* slot = bias_slot(plan, linear);
        if (slot == nullptr || half_biases_.count(slot->path) != 0) continue;
        const void* bias = prepared.params[static_cast<size_t>(w.linear)].at(
            static_cast<size_t>(*linear_bias_input(linear)));
        if (bias == nullptr) continue;  // not in the checkpoint (Whisper's k_proj has none)
        // Staged on the host (copies in and out of the device, no kernel), rounded to f16.
        const int64_t n = slot->shape.at(0);
        std::vector<float> f32(static_cast<size_t>(n));
        CUDA_CHECK(
            cudaMemcpy(f32.data(), bias, static_cast<size_t>(n * 4), cudaMemcpyDeviceToHost));
        std::vector<uint16_t> f16(f32.size());
        for (size_t i = 0; i < f32.size(); ++i) f16[i] = base::f32_to_f16(f32[i]);
        DeviceBuffer buffer(n * 2, "the f16 copy of " + slot->path, model_name_);
        CUDA_CHECK(cudaMemcpy(buffer.get(), f16.data(), f16.size() * 2, cudaMemcpyHostToDevice));
        half_biases_.emplace(slot->path, std::move(buffer));
    }
}

void CudaDeviceModel::cross_kv(const Prepared& prepared, size_t index,
                               const std::vector<void*>& ptr, std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    const std::vector<CrossKvWrite>& writes = prepared.fusions[index].cross_kv;
    auto step = [&](int64_t t) -> const PlanStep& { return plan.steps[static_cast<size_t>(t)]; };
    const PlanStep& first = step(writes.front().linear);
    const std::vector<int64_t>& xs =
        plan.slots[static_cast<size_t>(first.inputs.at(0))].shape;  // [B, A, D]
    const int64_t batch = xs[0];
    const int64_t a = xs[1];
    const int64_t d = xs[2];
    auto* x16 = reinterpret_cast<uint16_t*>(scratch);  // [B A, D] f16
    kernels::to_half(static_cast<const float*>(ptr[static_cast<size_t>(first.inputs.at(0))]), x16,
                     batch * a * d, stream_);
    for (const CrossKvWrite& w : writes) {
        const PlanStep& linear = step(w.linear);
        const PlanStep& write = step(w.write);
        const std::vector<int64_t>& cache =
            plan.slots[static_cast<size_t>(write.inputs.at(0))].shape;  // [B, H, Audio, Dh]
        const int64_t heads = cache[1];
        const int64_t audio = cache[2];
        const int64_t dh = cache[3];
        const Slot* bias = bias_slot(plan, linear);
        auto* out = static_cast<uint16_t*>(ptr[static_cast<size_t>(write.output)]);
        LtGemm g;
        g.w = static_cast<const uint16_t*>(prepared.params[static_cast<size_t>(w.linear)].at(1));
        const auto half_bias = bias != nullptr ? half_biases_.find(bias->path) : half_biases_.end();
        g.bias = half_bias != half_biases_.end() ? half_bias->second.get() : nullptr;
        g.y_half = true;
        g.m = a;
        g.k = d;
        g.n = dh;
        // Head h: y [A, Dh] at (h, start) of the row = x [A, D] w[h Dh : (h + 1) Dh]^T + bias.
        g.batch = heads;
        g.x_stride = 0;
        g.w_stride = dh * d;
        g.y_stride = audio * dh;
        g.bias_stride = dh;
        for (int64_t b = 0; b < batch; ++b) {
            g.x = x16 + b * a * d;
            g.y = out + (b * heads * audio + write.ints.at("start")) * dh;
            lt_gemm(lt_, g, cublas_workspace_.get(), static_cast<size_t>(cublas_workspace_.bytes()),
                    stream_);
        }
    }
}

}  // namespace earshot::backend::cuda
