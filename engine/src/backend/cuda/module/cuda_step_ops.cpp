// CudaDeviceModel's ops: one plan step launched on the CUDA kernels (kernels.h), its GEMMs on
// cuBLAS (f16 operands, f32 accumulation and output), attention fused, split or general.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"
#include "kernels.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

using program::OpKind;

void CudaDeviceModel::gemm(const uint16_t* x, const uint16_t* w, float* y, int64_t m, int64_t k,
                           int64_t n) {
    // Row-major y = x w^T is column-major y^T [n, m] = w (col-major [k, n])^T x (col-major [k, m]).
    const float one = 1.0F;
    const float zero = 0.0F;
    CUBLAS_CHECK(cublasGemmEx(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n),
                              static_cast<int>(m), static_cast<int>(k), &one, w, CUDA_R_16F,
                              static_cast<int>(k), x, CUDA_R_16F, static_cast<int>(k), &zero, y,
                              CUDA_R_32F, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

void CudaDeviceModel::attention(const ExecutionPlan& plan, const PlanStep& step,
                                const std::vector<void*>& ptr, std::byte* scratch) {
    auto at = [&](size_t i) { return ptr[static_cast<size_t>(step.inputs.at(i))]; };
    const auto& qs = plan.slots[static_cast<size_t>(step.inputs.at(0))].shape;  // [B, H, Q, Dh]
    const auto& ks = plan.slots[static_cast<size_t>(step.inputs.at(1))].shape;  // [B, H, K, Dh]
    const int64_t bh = qs[0] * qs[1];
    const int64_t q_len = qs[2];
    const int64_t k_len = ks[2];
    const int64_t dh = qs[3];
    const auto* q = static_cast<const float*>(at(0));
    // Keys and values are f16 when they are the caches, f32 when just computed (prefill, decode).
    const bool k_cached =
        plan.slots[static_cast<size_t>(step.inputs.at(1))].kind == SlotKind::state;
    const bool v_cached =
        plan.slots[static_cast<size_t>(step.inputs.at(2))].kind == SlotKind::state;
    const auto* k = static_cast<const float*>(at(1));
    const auto* v = static_cast<const float*>(at(2));
    const auto* mask = step.inputs.size() > 3 ? static_cast<const uint8_t*>(at(3)) : nullptr;
    auto* y = static_cast<float*>(ptr[static_cast<size_t>(step.output)]);
    // The (batch, head) rows the cached keys and values hold: H when every batch row reads one
    // shared copy (the cross caches of beam rows), else B H. Keys and values share alike.
    const bool shared = k_cached && shares_rows(plan, step.inputs.at(1));
    if (shared != (v_cached && shares_rows(plan, step.inputs.at(2)))) {
        throw std::logic_error(plan.entry + ": an attention whose keys and values are not " +
                               "shared alike by the batch rows");
    }
    const int64_t kv_rows = shared ? qs[1] : bh;
    // As the CPU backend computes it: 1 / sqrt(scale_dim) in f32.
    const float scale = 1.0F / std::sqrt(static_cast<float>(step.ints.at("scale_dim")));
    // The path `earshot debug plan` lists too (cuda_launch_rules.h).
    const AttentionPath path =
        attention_path(q_len, k_len, dh, k_cached, v_cached, fused_attention(dh));
    const bool one_query =
        path == AttentionPath::one_query_f16 || path == AttentionPath::one_query_f32;
    if (one_query && one_query_kernels(bh, dh, old_kernels_) == OneQueryKernels::split_keys) {
        auto* partials = reinterpret_cast<float*>(scratch);  // [BH, spans, Dh + 2]
        auto* done = split_key_counts_.as<unsigned>();       // [BH], zero between launches
        const bool launched =
            path == AttentionPath::one_query_f16
                ? kernels::attend_one_query_split_keys(
                      q, static_cast<const uint16_t*>(at(1)), static_cast<const uint16_t*>(at(2)),
                      mask, y, partials, done, bh, k_len, dh, scale, stream_, kv_rows)
                : kernels::attend_one_query_split_keys(q, k, v, mask, y, partials, done, bh, k_len,
                                                       dh, scale, stream_);
        if (!launched) {
            throw std::logic_error(
                "attend_one_query_split_keys refused a shape the launch rules let through");
        }
        return;
    }
    if (path == AttentionPath::one_query_f16) {
        if (!kernels::attend_one_query(q, static_cast<const uint16_t*>(at(1)),
                                       static_cast<const uint16_t*>(at(2)), mask, y, bh, k_len, dh,
                                       scale, stream_, kv_rows)) {
            throw std::logic_error("attend_one_query refused keys the launch rules let through");
        }
        return;
    }
    if (path == AttentionPath::one_query_f32) {
        if (!kernels::attend_one_query(q, k, v, mask, y, bh, k_len, dh, scale, stream_)) {
            throw std::logic_error("attend_one_query refused keys the launch rules let through");
        }
        return;
    }
    const bool fused = path == AttentionPath::fused;
    const AttentionScratch layout = attention_scratch(bh, q_len, k_len, dh, fused);
    auto* q16 = reinterpret_cast<uint16_t*>(scratch + layout.q16);
    const uint16_t* k16 = k_cached ? static_cast<const uint16_t*>(at(1))
                                   : reinterpret_cast<uint16_t*>(scratch + layout.k16);
    const uint16_t* v16 = v_cached ? static_cast<const uint16_t*>(at(2))
                                   : reinterpret_cast<uint16_t*>(scratch + layout.v16);
    auto* scores = reinterpret_cast<float*>(scratch + layout.scores);
    auto* probs = reinterpret_cast<uint16_t*>(scratch + layout.probs);
    kernels::to_half(q, q16, bh * q_len * dh, stream_);
    if (!k_cached) {
        kernels::to_half(k, reinterpret_cast<uint16_t*>(scratch + layout.k16), bh * k_len * dh,
                         stream_);
    }
    if (!v_cached) {
        kernels::to_half(v, reinterpret_cast<uint16_t*>(scratch + layout.v16), bh * k_len * dh,
                         stream_);
    }
    if (fused) {
        kernels::flash_attention(q16, k16, v16, mask, y, bh, q_len, k_len, dh, scale, stream_,
                                 kv_rows);
        return;
    }
    const float zero = 0.0F;
    const float one = 1.0F;
    // Batched over the kv_rows (batch, head) rows that have their own keys and values, once per
    // group of rows that read them (one group unless the rows share one copy of the caches).
    for (int64_t first = 0; first < bh; first += kv_rows) {
        // scores [Q, K] = scale * q [Q, Dh] k^T per (b, h): column-major scores^T = k q^T.
        CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            cublas_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(k_len), static_cast<int>(q_len),
            static_cast<int>(dh), &scale, k16, CUDA_R_16F, static_cast<int>(dh), k_len * dh,
            q16 + first * q_len * dh, CUDA_R_16F, static_cast<int>(dh), q_len * dh, &zero,
            scores + first * q_len * k_len, CUDA_R_32F, static_cast<int>(k_len), q_len * k_len,
            static_cast<int>(kv_rows), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
    kernels::softmax_rows_half(scores, mask, probs, bh * q_len, q_len, k_len, stream_);
    for (int64_t first = 0; first < bh; first += kv_rows) {
        // y [Q, Dh] = p [Q, K] v [K, Dh]: column-major y^T = v^T p^T.
        CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            cublas_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(dh), static_cast<int>(q_len),
            static_cast<int>(k_len), &one, v16, CUDA_R_16F, static_cast<int>(dh), k_len * dh,
            probs + first * q_len * k_len, CUDA_R_16F, static_cast<int>(k_len), q_len * k_len,
            &zero, y + first * q_len * dh, CUDA_R_32F, static_cast<int>(dh), q_len * dh,
            static_cast<int>(kv_rows), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
}

void CudaDeviceModel::execute(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                              std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    const PlanStep& step = plan.steps[index];
    if (step.alias) return;  // a view: its bytes are its input's
    if (!prepared.fusions.empty() && !unfused_run_) {
        const StepFusion& fusion = prepared.fusions[index];
        if (fusion.role == StepFusion::Role::skipped) return;  // done by a fused GEMV before
        if (fusion.role == StepFusion::Role::fused_gemv) {
            fused_gemv(prepared, index, ptr);
            return;
        }
        if (fusion.role == StepFusion::Role::encoder_attention) {
            encoder_attention(prepared, index, ptr, scratch);
            return;
        }
        if (fusion.role == StepFusion::Role::encoder_mlp) {
            encoder_mlp(prepared, index, ptr, scratch);
            return;
        }
        if (fusion.role == StepFusion::Role::cross_kv) {
            cross_kv(prepared, index, ptr, scratch);
            return;
        }
    }
    auto slot = [&](size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))];
    };
    // A step input: its param pointer (f16 or f32 as the op reads it), else its slot's.
    auto raw = [&](size_t i) -> const void* {
        const void* param = prepared.params[index][i];
        return param != nullptr ? param : ptr[static_cast<size_t>(step.inputs.at(i))];
    };
    auto in = [&](size_t i) { return static_cast<const float*>(raw(i)); };
    auto in_i32 = [&](size_t i) { return static_cast<const int32_t*>(raw(i)); };
    auto in_f16 = [&](size_t i) { return static_cast<const uint16_t*>(raw(i)); };
    const Slot& out_slot = plan.slots[static_cast<size_t>(step.output)];
    void* out_raw = ptr[static_cast<size_t>(step.output)];
    auto* out = static_cast<float*>(out_raw);
    const int64_t out_n = count(out_slot.shape);
    switch (step.kind) {
        case OpKind::permute: {
            const auto& shape = slot(0).shape;
            kernels::Permutation p;
            p.rank = static_cast<int>(shape.size());
            if (p.rank > 6) throw std::invalid_argument("permute supports rank <= 6");
            int64_t stride = 1;
            int64_t in_strides[6] = {};
            for (int i = p.rank - 1; i >= 0; --i) {
                in_strides[i] = stride;
                stride *= shape[static_cast<size_t>(i)];
            }
            for (int i = 0; i < p.rank; ++i) {
                const auto axis = static_cast<size_t>(step.axes.at(static_cast<size_t>(i)));
                p.out_shape[i] = shape[axis];
                p.src_strides[i] = in_strides[axis];
            }
            kernels::permute(static_cast<const uint32_t*>(raw(0)), static_cast<uint32_t*>(out_raw),
                             out_n, p, stream_);
            return;
        }
        case OpKind::conv1d: {
            const auto& xs = slot(0).shape;  // [B, L, Cin]
            const auto& ws = slot(1).shape;  // [Cout, Cin, K]
            const int64_t out_length = out_slot.shape[1];
            auto* cols = reinterpret_cast<uint16_t*>(scratch);
            kernels::im2col_half(in(0), cols, xs[0], xs[1], xs[2], ws[2], step.ints.at("stride"),
                                 step.ints.at("padding"), out_length, stream_);
            gemm(cols, in_f16(1), out, xs[0] * out_length, ws[1] * ws[2], ws[0]);
            if (step.inputs.size() > 2 && raw(2) != nullptr) {
                kernels::add_bias(out, in(2), xs[0] * out_length, ws[0], stream_);
            }
            return;
        }
        case OpKind::gelu_erf:
            kernels::gelu_erf(in(0), out, out_n, stream_);
            return;
        case OpKind::add:
            kernels::add(in(0), in(1), out, out_n, count(slot(1).shape), stream_);
            return;
        case OpKind::layer_norm: {
            const int64_t d = slot(0).shape.back();
            kernels::layer_norm(in(0), in(1), in(2), out, out_n / d, d,
                                static_cast<float>(step.eps), stream_);
            return;
        }
        case OpKind::rms_norm: {
            const int64_t d = slot(0).shape.back();
            kernels::rms_norm(in(0), in(1), out, out_n / d, d, static_cast<float>(step.eps),
                              stream_);
            return;
        }
        case OpKind::linear: {
            const int64_t k = slot(0).shape.back();
            const int64_t n = slot(1).shape.at(0);
            const int64_t m = count(slot(0).shape) / k;
            const auto bias_input = linear_bias_input(step);
            const float* bias = bias_input ? in(*bias_input) : nullptr;
            kernels::Epilogue epilogue;
            epilogue.gelu = linear_gelu_epilogue(step);
            if (const auto residual = linear_residual_input(step))
                epilogue.residual = in(*residual);
            const int32_t blocks = prepared.weight_blocks[index];
            if (linear_path(m) == LinearPath::gemv) {  // a step: one kernel reads the weights once
                if (blocks != 0) {
                    if (!kernels::gemv_blocks(in(0), raw(1), blocks, bias, out, m, k, n, epilogue,
                                              stream_)) {
                        throw std::logic_error("gemv_blocks refused the blocks of " + slot(1).path);
                    }
                } else if (gemv_kernel(k, old_kernels_) == GemvKernel::columns) {
                    kernels::gemv_f16_columns(in(0), in_f16(1), bias, out, m, k, n, epilogue,
                                              stream_);
                } else {
                    kernels::gemv_f16(in(0), in_f16(1), bias, out, m, k, n, epilogue, stream_);
                }
                return;
            }
            auto* x16 = reinterpret_cast<uint16_t*>(scratch);
            kernels::to_half(in(0), x16, m * k, stream_);
            const uint16_t* w16 = in_f16(1);
            if (blocks != 0) {  // many rows on block weights: decoded into the scratch first
                auto* decoded = reinterpret_cast<uint16_t*>(scratch + align_up(m * k * 2));
                if (!kernels::dequantize_blocks_f16(raw(1), blocks, decoded,
                                                    n * k / kernels::kBlockValues, stream_)) {
                    throw std::logic_error("dequantize_blocks_f16 refused the blocks of " +
                                           slot(1).path);
                }
                w16 = decoded;
            }
            gemm(x16, w16, out, m, k, n);
            if (bias != nullptr || epilogue.gelu || epilogue.residual != nullptr) {
                kernels::finish_linear(out, bias, m, n, epilogue, stream_);
            }
            return;
        }
        case OpKind::split_heads: {
            const auto& xs = slot(0).shape;  // [B, N, D]
            const int64_t heads = step.ints.at("heads");
            kernels::split_heads(in(0), out, xs[0], xs[1], heads, xs[2] / heads, stream_);
            return;
        }
        case OpKind::merge_heads: {
            const auto& xs = slot(0).shape;  // [B, H, N, Dh]
            kernels::merge_heads(in(0), out, xs[0], xs[1], xs[2], xs[3], stream_);
            return;
        }
        case OpKind::attention:
            attention(plan, step, ptr, scratch);
            return;
        case OpKind::embedding: {
            const auto& ts = slot(1).shape;  // [V, H]
            kernels::embedding(in_i32(0), in_f16(1), out, count(slot(0).shape), ts[1], stream_);
            return;
        }
        case OpKind::slice_rows: {
            const auto& ts = slot(0).shape;  // [N, D]
            const int32_t* start_device = step.inputs.size() > 1 ? in_i32(1) : nullptr;
            const int64_t start = start_device != nullptr ? 0 : step.ints.at("start");
            kernels::slice_rows(in(0), out, ts[1], step.ints.at("length"), start, start_device,
                                stream_);
            return;
        }
        case OpKind::take: {
            const auto& xs = slot(0).shape;
            const auto axis = static_cast<size_t>(step.ints.at("axis"));
            kernels::take(in(0), out, count(xs, 0, axis), xs[axis], count(xs, axis + 1),
                          step.ints.at("index"), stream_);
            return;
        }
        case OpKind::causal_mask:
            kernels::causal_mask(static_cast<uint8_t*>(out_raw), step.ints.at("size"), stream_);
            return;
        case OpKind::iota:
            kernels::iota(static_cast<int32_t*>(out_raw), out_n, stream_);
            return;
        case OpKind::less_equal:
            kernels::less_equal(in_i32(0), in_i32(1), static_cast<uint8_t*>(out_raw), out_n,
                                stream_);
            return;
        case OpKind::reshape:
            if (out_raw != raw(0)) {
                CUDA_CHECK(cudaMemcpyAsync(out_raw, raw(0),
                                           static_cast<size_t>(out_slot.size_bytes),
                                           cudaMemcpyDeviceToDevice, stream_));
            }
            return;
        case OpKind::write_span:
        case OpKind::write_at: {
            const auto& ss = slot(0).shape;
            const auto& vs = slot(1).shape;
            const auto axis = static_cast<size_t>(step.ints.at("axis"));
            const int32_t* start_device = step.kind == OpKind::write_at ? in_i32(2) : nullptr;
            const int64_t start = start_device != nullptr ? 0 : step.ints.at("start");
            kernels::write_span(static_cast<uint16_t*>(out_raw), in(1), count(ss, 0, axis),
                                ss[axis], vs[axis], count(ss, axis + 1), start, start_device,
                                stream_);
            return;
        }
        case OpKind::input:
        case OpKind::param:
        case OpKind::state:
        case OpKind::none:
            break;
    }
    throw std::logic_error("the CUDA backend has no kernel for op " +
                           std::to_string(static_cast<int>(step.kind)) + " in " + plan.entry);
}

}  // namespace earshot::backend::cuda
