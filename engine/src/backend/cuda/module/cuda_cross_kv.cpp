// CudaDeviceModel's fused cross keys and values of listen (cuda_cross_kv_fusion.h): the audio
// states x [B, A, D] converted to f16 once, then, when the caches lie one after another in the
// cross caches allocation, one cuBLASLt GEMM batched over every (cache, head) block writes
// [A, Dh] of each straight into its f16 cache at the start position, the joined biases (f16)
// in the epilogue; otherwise one such GEMM per cache and audio row, batched over its heads.
#include <stdexcept>
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

// The weight slot of a fused write's linear ([D, D]).
const Slot& weight_slot(const ExecutionPlan& plan, const CrossKvWrite& w) {
    return plan.slots[static_cast<size_t>(plan.steps[static_cast<size_t>(w.linear)].inputs.at(1))];
}

}  // namespace

void CudaDeviceModel::prepare_cross_kv(Prepared& prepared, size_t index) {
    const ExecutionPlan& plan = *prepared.plan;
    const std::vector<CrossKvWrite>& writes = prepared.fusions.at(index).cross_kv;
    const std::string& key = weight_slot(plan, writes.front()).path;
    if (const auto found = cross_kv_weights_.find(key); found != cross_kv_weights_.end()) {
        // Another plan of listen (another batch): the same linears in the same order.
        bool same = found->second.weights.size() == writes.size();
        for (size_t i = 0; same && i < writes.size(); ++i) {
            same = found->second.weights[i] == weight_slot(plan, writes[i]).path;
        }
        if (!same) {
            throw std::logic_error(plan.entry + ": the fused cross k/v run starting at " + key +
                                   " reads other weights than the one joined before");
        }
        return;
    }
    CrossKvWeights joined;
    joined.d = weight_slot(plan, writes.front()).shape.at(0);  // [D, D]
    const int64_t d = joined.d;
    const auto n = static_cast<int64_t>(writes.size());
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    // Staged on the host (copies in and out of the device, no kernel): [n, D, D] weights, then
    // the [n, D] biases rounded to f16, zero where the checkpoint has none (Whisper's k_proj).
    std::vector<uint16_t> host(static_cast<size_t>(n * d * d + n * d), 0);  // 0: +0.0
    std::vector<float> bias_f32(static_cast<size_t>(d));
    for (int64_t i = 0; i < n; ++i) {
        const CrossKvWrite& w = writes[static_cast<size_t>(i)];
        const PlanStep& linear = plan.steps[static_cast<size_t>(w.linear)];
        const std::vector<const void*>& params = prepared.params[static_cast<size_t>(w.linear)];
        if (params.at(1) == nullptr) {
            throw std::logic_error("the fused cross k/v: " + weight_slot(plan, w).path +
                                   " is not on the device as f16");
        }
        CUDA_CHECK(cudaMemcpy(host.data() + i * d * d, params[1], static_cast<size_t>(d * d * 2),
                              cudaMemcpyDeviceToHost));
        joined.weights.push_back(weight_slot(plan, w).path);
        const auto b = linear_bias_input(linear);
        const void* bias = b ? params.at(*b) : nullptr;  // null: not in the checkpoint
        joined.has_bias.push_back(bias != nullptr);
        if (bias == nullptr) continue;
        joined.any_bias = true;
        CUDA_CHECK(
            cudaMemcpy(bias_f32.data(), bias, static_cast<size_t>(d * 4), cudaMemcpyDeviceToHost));
        for (int64_t j = 0; j < d; ++j) {
            host[static_cast<size_t>(n * d * d + i * d + j)] =
                base::f32_to_f16(bias_f32[static_cast<size_t>(j)]);
        }
    }
    joined.values = DeviceBuffer(static_cast<int64_t>(host.size()) * 2,
                                 "the joined cross k/v weights of " + key, model_name_);
    CUDA_CHECK(
        cudaMemcpy(joined.values.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice));
    // One copy: each linear reads its weight in the join from now on (the separate launches of a
    // tapped run, decode, plans prepared before), its own copy freed. No run is in flight while
    // a plan is prepared.
    for (int64_t i = 0; i < n; ++i) {
        Param& param = params_.at(joined.weights[static_cast<size_t>(i)]);
        const void* view = joined.weight(static_cast<size_t>(i));
        move_param(param.f16_data(), view, prepared);
        param.f16_in = view;
        param.f16.reset();
    }
    cross_kv_weights_.emplace(key, std::move(joined));
}

const CudaDeviceModel::CrossKvWeights& CudaDeviceModel::cross_kv_weights_of(
    const ExecutionPlan& plan, const StepFusion& fusion) const {
    return cross_kv_weights_.at(weight_slot(plan, fusion.cross_kv.front()).path);
}

void CudaDeviceModel::cross_kv(const Prepared& prepared, size_t index,
                               const std::vector<void*>& ptr, std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    const StepFusion& fusion = prepared.fusions[index];
    const std::vector<CrossKvWrite>& writes = fusion.cross_kv;
    auto step = [&](int64_t t) -> const PlanStep& { return plan.steps[static_cast<size_t>(t)]; };
    auto cache_of = [&](const CrossKvWrite& w) {
        return static_cast<uint16_t*>(ptr[static_cast<size_t>(step(w.write).output)]);
    };
    const PlanStep& first = step(writes.front().linear);
    const std::vector<int64_t>& xs =
        plan.slots[static_cast<size_t>(first.inputs.at(0))].shape;  // [B, A, D]
    const int64_t batch = xs[0];
    const int64_t a = xs[1];
    const int64_t d = xs[2];
    const std::vector<int64_t>& cache =
        plan.slots[static_cast<size_t>(step(writes.front().write).inputs.at(0))]
            .shape;  // [B, H, Audio, Dh]
    const int64_t heads = cache[1];
    const int64_t audio = cache[2];
    const int64_t dh = cache[3];
    const CrossKvWeights& joined = cross_kv_weights_of(plan, fusion);
    auto* x16 = reinterpret_cast<uint16_t*>(scratch);  // [B A, D] f16
    kernels::to_half(static_cast<const float*>(ptr[static_cast<size_t>(first.inputs.at(0))]), x16,
                     batch * a * d, stream_);
    // Each (cache, head) block y [A, Dh] at (h, start) of its cache = x [A, D]
    // w_cache[h Dh : (h + 1) Dh]^T + bias_cache[h Dh : (h + 1) Dh].
    LtGemm g;
    g.y_half = true;
    g.m = a;
    g.k = d;
    g.n = dh;
    g.x_stride = 0;
    g.w_stride = dh * d;
    g.y_stride = audio * dh;
    g.bias_stride = dh;
    // One GEMM: cache i's first row right after cache i - 1's ([caches][1][H, Audio, Dh] in
    // cross_caches_), so block (i, h) is batch i H + h at one stride of Audio Dh, as the joined
    // weights' [caches][D, D] are at Dh D and the biases' [caches][D] at Dh.
    bool one_gemm = cross_kv_one_gemm(plan, fusion);
    for (size_t i = 0; one_gemm && i < writes.size(); ++i) {
        one_gemm = cache_of(writes[i]) ==
                   cache_of(writes.front()) + static_cast<int64_t>(i) * heads * audio * dh;
    }
    const int64_t start = step(writes.front().write).ints.at("start");
    if (one_gemm) {
        g.x = x16;
        g.w = joined.weight(0);
        g.bias = joined.any_bias ? joined.bias(0) : nullptr;
        g.y = cache_of(writes.front()) + start * dh;
        g.batch = static_cast<int64_t>(writes.size()) * heads;
        lt_gemm(lt_, g, cublas_workspace_.get(), static_cast<size_t>(cublas_workspace_.bytes()),
                stream_);
        return;
    }
    for (size_t i = 0; i < writes.size(); ++i) {
        const PlanStep& write = step(writes[i].write);
        const std::vector<int64_t>& cs =
            plan.slots[static_cast<size_t>(write.inputs.at(0))].shape;  // [B, H, Audio, Dh]
        g.w = joined.weight(i);
        g.bias = joined.has_bias[i] ? joined.bias(i) : nullptr;
        g.n = cs[3];
        g.batch = cs[1];
        g.w_stride = cs[3] * d;
        g.y_stride = cs[2] * cs[3];
        g.bias_stride = cs[3];
        for (int64_t b = 0; b < batch; ++b) {
            g.x = x16 + b * a * d;
            g.y = cache_of(writes[i]) + (b * cs[1] * cs[2] + write.ints.at("start")) * cs[3];
            lt_gemm(lt_, g, cublas_workspace_.get(), static_cast<size_t>(cublas_workspace_.bytes()),
                    stream_);
        }
    }
}

}  // namespace earshot::backend::cuda
