// CudaDeviceModel's fused encoder layer (cuda_encoder_fusions.h): the attention half (LayerNorm
// to f16, one q k v GEMM, the strided flash attention, out_proj with bias and residual) and the
// MLP half (LayerNorm to f16, fc1 to f16, bias + erf GELU in place, fc2 with bias and residual).
#include <cmath>
#include <stdexcept>
#include <string>

#include "backend/cuda/cuda_encoder_fusions.h"
#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_lt_gemm.h"
#include "cuda_workspace_layout.h"
#include "earshot/base/half_float.h"
#include "kernels.h"

namespace earshot::backend::cuda {

namespace {

// Input i of plan step t: its param pointer (f16 or f32 as the op reads it), else its slot's.
struct Operands {
    const ExecutionPlan& plan;
    const std::vector<std::vector<const void*>>& params;
    const std::vector<void*>& ptr;

    const PlanStep& step(int64_t t) const { return plan.steps[static_cast<size_t>(t)]; }
    const Slot& slot(int64_t t, size_t i) const {
        return plan.slots[static_cast<size_t>(step(t).inputs.at(i))];
    }
    const void* in(int64_t t, size_t i) const {
        const void* param = params[static_cast<size_t>(t)][i];
        return param != nullptr ? param : ptr[static_cast<size_t>(step(t).inputs.at(i))];
    }
    const float* f32(int64_t t, size_t i) const { return static_cast<const float*>(in(t, i)); }
    const uint16_t* f16(int64_t t, size_t i) const {
        return static_cast<const uint16_t*>(in(t, i));
    }
    void* out(int64_t t) const { return ptr[static_cast<size_t>(step(t).output)]; }
    // A linear's bias (f32 param), or null when it has none.
    const float* bias(int64_t t) const {
        const auto b = linear_bias_input(step(t));
        if (!b || slot(t, *b).kind == SlotKind::none) return nullptr;
        return f32(t, *b);
    }
    const float* residual(int64_t t) const { return f32(t, *linear_residual_input(step(t))); }
};

// Linear step t with its bias and the residual as C: y [m, n] f32 = x [m, k] f16 w^T + bias +
// residual, one cuBLASLt GEMM (out_proj and fc2 of the fused layer).
LtGemm residual_linear(const Operands& op, int64_t t, const uint16_t* x, int64_t m, int64_t k,
                       int64_t n) {
    LtGemm g;
    g.x = x;
    g.w = op.f16(t, 1);
    g.bias = op.bias(t);
    g.residual = op.residual(t);
    g.y = op.out(t);
    g.m = m;
    g.k = k;
    g.n = n;
    return g;
}

}  // namespace

void CudaDeviceModel::move_param(const void* from, const void* to, Prepared& prepared) {
    auto move = [&](Prepared& p) {
        bool moved = false;
        for (std::vector<const void*>& inputs : p.params) {
            for (const void*& param : inputs) {
                if (param == from) {
                    param = to;
                    moved = true;
                }
            }
        }
        if (moved && p.graph != nullptr) {  // captured with the old address
            cudaGraphExecDestroy(p.graph);
            p.graph = nullptr;
        }
    };
    for (Prepared& p : prepared_) move(p);
    move(prepared);
}

void CudaDeviceModel::prepare_qkv(Prepared& prepared, size_t index) {
    const ExecutionPlan& plan = *prepared.plan;
    const EncoderLayerSteps& g = prepared.fusions.at(index).encoder;
    const std::string& key =
        plan.slots[static_cast<size_t>(plan.steps[static_cast<size_t>(g.q)].inputs.at(1))].path;
    if (qkv_weights_.count(key) != 0) return;
    const std::vector<void*> no_slots;
    const Operands op{plan, prepared.params, no_slots};
    const int64_t d = op.slot(g.q, 1).shape.at(0);  // [D, D]
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    // Staged on the host (copies in and out of the device, no kernel): [3 D, D] weights, then
    // the [3 D] biases rounded to f16.
    std::vector<uint16_t> host(static_cast<size_t>(3 * d * d + 3 * d), 0);  // 0: +0.0
    std::vector<float> bias_f32(static_cast<size_t>(d));
    const int64_t linears[3] = {g.q, g.k, g.v};
    for (int64_t i = 0; i < 3; ++i) {
        const auto t = static_cast<size_t>(linears[i]);
        const void* w = prepared.params[t].at(1);
        if (w == nullptr)
            throw std::logic_error("the fused q, k, v: a weight is not on the device");
        CUDA_CHECK(cudaMemcpy(host.data() + i * d * d, w, static_cast<size_t>(d * d * 2),
                              cudaMemcpyDeviceToHost));
        const auto b = linear_bias_input(op.step(linears[i]));
        const void* bias = b ? prepared.params[t].at(*b) : nullptr;
        if (bias == nullptr) continue;  // k_proj: no bias
        CUDA_CHECK(
            cudaMemcpy(bias_f32.data(), bias, static_cast<size_t>(d * 4), cudaMemcpyDeviceToHost));
        for (int64_t j = 0; j < d; ++j) {
            host[static_cast<size_t>(3 * d * d + i * d + j)] =
                base::f32_to_f16(bias_f32[static_cast<size_t>(j)]);
        }
    }
    DeviceBuffer buffer(static_cast<int64_t>(host.size()) * 2,
                        "the fused q, k, v weights of " + key, model_name_);
    CUDA_CHECK(cudaMemcpy(buffer.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice));
    // One copy: q, k and v read their rows of the concatenation from now on (the separate
    // launches of a tapped run or of a plan prepared before), their own copies freed. No run
    // is in flight while a plan is prepared.
    for (int64_t i = 0; i < 3; ++i) {
        const PlanStep& linear = op.step(linears[i]);
        Param& param = params_.at(plan.slots[static_cast<size_t>(linear.inputs.at(1))].path);
        if (param.f16.get() == nullptr) continue;  // already a view
        const void* view = buffer.as<std::byte>() + i * d * d * 2;
        move_param(param.f16.get(), view, prepared);
        param.f16_in = view;
        param.f16.reset();
    }
    qkv_weights_.emplace(key, std::move(buffer));
}

const DeviceBuffer& CudaDeviceModel::qkv_of(const ExecutionPlan& plan,
                                            const StepFusion& fusion) const {
    const PlanStep& q = plan.steps[static_cast<size_t>(fusion.encoder.q)];
    return qkv_weights_.at(plan.slots[static_cast<size_t>(q.inputs.at(1))].path);
}

void CudaDeviceModel::encoder_attention(const Prepared& prepared, size_t index,
                                        const std::vector<void*>& ptr, std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    const StepFusion& fusion = prepared.fusions[index];
    const EncoderLayerSteps& g = fusion.encoder;
    const Operands op{plan, prepared.params, ptr};
    const std::vector<int64_t>& xs = op.slot(g.layer_norm, 0).shape;  // [B, T, D]
    const std::vector<int64_t>& qs = op.slot(g.attention, 0).shape;   // [B, H, T, Dh]
    const int64_t d = xs[2];
    const int64_t m = xs[0] * xs[1];
    auto* normed = reinterpret_cast<uint16_t*>(scratch);  // [B T, D] f16, later the attention's
    auto* qkv = reinterpret_cast<uint16_t*>(scratch + align_up(m * d * 2));  // [B T, 3 D] f16
    kernels::layer_norm_half(op.f32(g.layer_norm, 0), op.f32(g.layer_norm, 1),
                             op.f32(g.layer_norm, 2), normed, m, d,
                             static_cast<float>(op.step(g.layer_norm).eps), stream_);
    const DeviceBuffer& weights = qkv_of(plan, fusion);
    LtGemm project;
    project.x = normed;
    project.w = weights.as<uint16_t>();
    project.bias = weights.as<std::byte>() + 3 * d * d * 2;
    project.y = qkv;
    project.y_half = true;
    project.m = m;
    project.k = d;
    project.n = 3 * d;
    lt_gemm(lt_, project, cublas_workspace_.get(), static_cast<size_t>(cublas_workspace_.bytes()),
            stream_);
    // As the CPU backend computes it: 1 / sqrt(scale_dim) in f32.
    const float scale =
        1.0F / std::sqrt(static_cast<float>(op.step(g.attention).ints.at("scale_dim")));
    if (!kernels::flash_attention_strided(qkv, normed, xs[0], xs[1], qs[1], qs[3], scale,
                                          stream_)) {
        throw std::logic_error("flash_attention_strided refused a shape the fusion let through");
    }
    lt_gemm(lt_, residual_linear(op, g.out_proj, normed, m, d, d), cublas_workspace_.get(),
            static_cast<size_t>(cublas_workspace_.bytes()), stream_);
}

void CudaDeviceModel::encoder_mlp(const Prepared& prepared, size_t index,
                                  const std::vector<void*>& ptr, std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    const EncoderLayerSteps& g = prepared.fusions[index].encoder;
    const Operands op{plan, prepared.params, ptr};
    const std::vector<int64_t>& xs = op.slot(g.layer_norm, 0).shape;  // [B, T, D]
    const int64_t d = xs.back();
    const int64_t m = count(xs) / d;
    const int64_t inner = op.slot(g.fc1, 1).shape.at(0);
    auto* normed = reinterpret_cast<uint16_t*>(scratch);                          // [B T, D] f16
    auto* hidden16 = reinterpret_cast<uint16_t*>(scratch + align_up(m * d * 2));  // [B T, I] f16
    kernels::layer_norm_half(op.f32(g.layer_norm, 0), op.f32(g.layer_norm, 1),
                             op.f32(g.layer_norm, 2), normed, m, d,
                             static_cast<float>(op.step(g.layer_norm).eps), stream_);
    // fc1 written as f16, its bias and GELU applied in place (the bias in f32, see
    // kernels_encoder.cu).
    LtGemm fc1;
    fc1.x = normed;
    fc1.w = op.f16(g.fc1, 1);
    fc1.y = hidden16;
    fc1.y_half = true;
    fc1.m = m;
    fc1.k = d;
    fc1.n = inner;
    lt_gemm(lt_, fc1, cublas_workspace_.get(), static_cast<size_t>(cublas_workspace_.bytes()),
            stream_);
    kernels::bias_gelu_half(hidden16, op.bias(g.fc1), hidden16, m, inner, stream_);
    lt_gemm(lt_, residual_linear(op, g.fc2, hidden16, m, inner, d), cublas_workspace_.get(),
            static_cast<size_t>(cublas_workspace_.bytes()), stream_);
}

}  // namespace earshot::backend::cuda
