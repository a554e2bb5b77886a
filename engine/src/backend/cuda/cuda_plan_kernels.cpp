// The kernels the CUDA module launches for one plan step, as CudaDeviceModel::execute launches
// them: the same launch rules (cuda_launch_rules.h) decide a linear's GEMV or GEMM and an
// attention's path, and parameters are read as device_module.h says (f16 GEMM operands).
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/plan_kernels.h"
#include "cuda_cross_kv_fusion.h"
#include "cuda_launch_rules.h"
#include "cuda_step_fusions.h"
#include "device_module.h"

namespace earshot::backend {

using program::OpKind;

bool cuda_fused_attention_enabled() { return cuda::fused_attention_enabled(); }

namespace {

int64_t count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

// Whether a step of `plan` writes the cache `path` (write_span / write_at into it).
bool writes_state(const ExecutionPlan& plan, const std::string& path) {
    for (const PlanStep& step : plan.steps) {
        if ((step.kind != OpKind::write_span && step.kind != OpKind::write_at) ||
            step.inputs.empty()) {
            continue;
        }
        const Slot& slot = plan.slots[static_cast<size_t>(step.inputs[0])];
        if (slot.kind == SlotKind::state && slot.path == path) return true;
    }
    return false;
}

}  // namespace

std::vector<cuda::StepFusion> cuda_step_fusions(const ExecutionPlan& plan) {
    const cuda::OldKernels old = cuda::old_kernels_enabled();
    if (old.fusion || old.gemv) return {};
    return cuda::plan_step_fusions(plan);
}

namespace {

// The fused GEMV a group's first linear launches (cuda_step_fusions.h).
using WeightBlocks = std::function<std::string(const std::string& path)>;

// The dtype the module keeps a linear's weight (step input 1) in: f16, or its blocks' type.
std::string weight_dtype(const ExecutionPlan& plan, const PlanStep& step,
                         const WeightBlocks& weight_blocks) {
    const Slot& w = plan.slots[static_cast<size_t>(step.inputs.at(1))];
    if (!weight_blocks || w.kind != SlotKind::param) return "f16";
    const std::string blocks = weight_blocks(w.path);
    return blocks.empty() ? "f16" : blocks;
}

PlanKernel fused_gemv_kernel(const ExecutionPlan& plan, const cuda::StepFusion& fusion,
                             const WeightBlocks& weight_blocks) {
    auto in = [&](int64_t t, size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(plan.steps[static_cast<size_t>(t)].inputs.at(i))];
    };
    const int64_t source = fusion.layer_norm >= 0 ? fusion.layer_norm : fusion.linears[0].step;
    const auto& xs = in(source, 0).shape;  // [.., K]
    const int64_t k = xs.back();
    const int64_t m = count(xs) / k;
    const std::string weights =
        weight_dtype(plan, plan.steps[static_cast<size_t>(fusion.linears[0].step)], weight_blocks);
    std::string name = "gemv_" + weights + "_fused";
    if (fusion.layer_norm >= 0) name += "+layer_norm";
    if (fusion.linears.size() > 1) name += " x" + std::to_string(fusion.linears.size());
    bool caches = false;
    for (const cuda::FusedLinearStep& l : fusion.linears) {
        const PlanStep& step = plan.steps[static_cast<size_t>(l.step)];
        if (linear_gelu_epilogue(step)) name += "+gelu";
        if (linear_residual_input(step)) name += "+residual";
        caches = caches || l.cache_write >= 0;
    }
    if (caches) name += "+cache_write";
    // Named after the step that launches it, the group's last linear.
    KernelDescription gemv(name, plan.steps[static_cast<size_t>(fusion.linears.back().step)]);
    gemv.read("f32", xs);
    if (fusion.layer_norm >= 0)
        gemv.read("f32", in(fusion.layer_norm, 1).shape)
            .read("f32", in(fusion.layer_norm, 2).shape);
    int64_t flops = 0;
    for (const cuda::FusedLinearStep& l : fusion.linears) {
        const PlanStep& step = plan.steps[static_cast<size_t>(l.step)];
        const auto& ws = in(l.step, 1).shape;  // [N, K]
        gemv.read(weight_dtype(plan, step, weight_blocks), ws);
        if (const auto bias = linear_bias_input(step);
            bias && in(l.step, *bias).kind != SlotKind::none) {
            gemv.read("f32", in(l.step, *bias).shape);
        }
        if (const auto residual = linear_residual_input(step))
            gemv.read("f32", in(l.step, *residual).shape);
        if (l.cache_write >= 0) {
            // One position of each row and head of the f16 cache.
            gemv.write_part("f16", in(l.cache_write, 0).shape, m * ws[0] * 2);
        } else {
            gemv.write("f32", plan.slots[static_cast<size_t>(step.output)].shape);
        }
        flops += 2 * m * k * ws[0];
    }
    return gemv.flops(flops).done();
}

// A linear with its bias and the residual as one cuBLASLt GEMM: x [m, k] f16, w [n, k] f16, the
// bias [n] f32 where the step has one, then the residual read and y [B, T, n] f32 written.
PlanKernel residual_gemm_kernel(const ExecutionPlan& plan, const PlanStep& linear, int64_t m,
                                int64_t k, int64_t n) {
    const auto& out = plan.slots[static_cast<size_t>(linear.output)].shape;
    KernelDescription gemm("cublaslt_gemm+bias+residual", linear);
    gemm.read("f16", {m, k}).read("f16", {n, k});
    if (const auto bias = linear_bias_input(linear);
        bias && plan.slots[static_cast<size_t>(linear.inputs.at(*bias))].kind != SlotKind::none) {
        gemm.read("f32", {n});
    }
    gemm.read("f32", out).write("f32", out).flops(2 * m * k * n);
    return gemm.done();
}

// The fused encoder layer's LayerNorm of x [B, T, D] f32, written as the f16 [B T, D] operand of
// the GEMM after it.
PlanKernel layer_norm_half_kernel(const PlanStep& norm, const std::vector<int64_t>& xs) {
    const int64_t d = xs.back();
    return KernelDescription("layer_norm_half", norm)
        .read("f32", xs)
        .read("f32", {d})
        .read("f32", {d})
        .write("f16", {count(xs) / d, d})
        .done();
}

// An encoder layer's attention half (cuda_encoder_fusions.h), its kernels named after the steps
// they stand for: m = B T rows of width D.
std::vector<PlanKernel> encoder_attention_kernels(const ExecutionPlan& plan,
                                                  const cuda::StepFusion& fusion) {
    const cuda::EncoderLayerSteps& g = fusion.encoder;
    auto step = [&](int64_t t) -> const PlanStep& { return plan.steps[static_cast<size_t>(t)]; };
    auto in = [&](int64_t t, size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step(t).inputs.at(i))];
    };
    const auto& xs = in(g.layer_norm, 0).shape;  // [B, T, D]
    const auto& qs = in(g.attention, 0).shape;   // [B, H, T, Dh]
    const int64_t d = xs.back();
    const int64_t m = count(xs) / d;
    std::vector<PlanKernel> kernels;
    kernels.push_back(layer_norm_half_kernel(step(g.layer_norm), xs));
    kernels.push_back(KernelDescription("cublaslt_gemm+bias", step(g.q))
                          .read("f16", {m, d})
                          .read("f16", {3 * d, d})
                          .read("f16", {3 * d})
                          .write("f16", {m, 3 * d})
                          .flops(2 * m * d * 3 * d)
                          .done());
    kernels.push_back(KernelDescription("flash_attention_strided", step(g.attention))
                          .read("f16", {m, 3 * d})
                          .write("f16", {m, d})
                          .flops(4 * qs[0] * qs[1] * qs[2] * qs[2] * qs[3])
                          .done());
    kernels.push_back(residual_gemm_kernel(plan, step(g.out_proj), m, d, d));
    return kernels;
}

// An encoder layer's MLP half: LayerNorm to f16, fc1 to f16 (cuBLASLt), bias + erf GELU in place,
// fc2 with bias and residual.
std::vector<PlanKernel> encoder_mlp_kernels(const ExecutionPlan& plan,
                                            const cuda::StepFusion& fusion) {
    const cuda::EncoderLayerSteps& g = fusion.encoder;
    auto step = [&](int64_t t) -> const PlanStep& { return plan.steps[static_cast<size_t>(t)]; };
    auto in = [&](int64_t t, size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step(t).inputs.at(i))];
    };
    const auto& xs = in(g.layer_norm, 0).shape;  // [B, T, D]
    const int64_t d = xs.back();
    const int64_t m = count(xs) / d;
    const int64_t inner = in(g.fc1, 1).shape.at(0);
    std::vector<PlanKernel> kernels;
    kernels.push_back(layer_norm_half_kernel(step(g.layer_norm), xs));
    kernels.push_back(KernelDescription("cublaslt_gemm", step(g.fc1))
                          .read("f16", {m, d})
                          .read("f16", {inner, d})
                          .write("f16", {m, inner})
                          .flops(2 * m * d * inner)
                          .done());
    kernels.push_back(KernelDescription("bias_gelu_half", step(g.fc1))
                          .read("f16", {m, inner})
                          .read("f32", {inner})
                          .write("f16", {m, inner})
                          .done());
    kernels.push_back(residual_gemm_kernel(plan, step(g.fc2), m, inner, d));
    return kernels;
}

// listen's fused cross keys and values (cuda_cross_kv_fusion.h): x [B, A, D] to f16 once, then
// one cuBLASLt GEMM for every (cache, head) block, reading the joined weights [caches, D, D] and
// f16 biases [caches, D] and writing the A positions of every cache (named after the first
// linear), or, where the caches do not line up so, per cache and batch row one GEMM batched over
// its heads (v's bias in the epilogue), each named after its linear.
std::vector<PlanKernel> cross_kv_kernels(const ExecutionPlan& plan,
                                         const cuda::StepFusion& fusion) {
    auto step = [&](int64_t t) -> const PlanStep& { return plan.steps[static_cast<size_t>(t)]; };
    auto in = [&](int64_t t, size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step(t).inputs.at(i))];
    };
    auto has_bias = [&](const cuda::CrossKvWrite& w) {
        const auto bias = linear_bias_input(step(w.linear));
        return bias && in(w.linear, *bias).kind != SlotKind::none;
    };
    const int64_t first = fusion.cross_kv.front().linear;
    const auto& xs = in(first, 0).shape;  // [B, A, D]
    const int64_t d = xs[2];
    const int64_t a = xs[1];
    std::vector<PlanKernel> kernels;
    kernels.push_back(KernelDescription("to_half", step(first))
                          .read("f32", xs)
                          .write("f16", {xs[0] * a, d})
                          .done());
    if (cuda::cross_kv_one_gemm(plan, fusion)) {
        const auto caches = static_cast<int64_t>(fusion.cross_kv.size());
        const bool bias = std::any_of(fusion.cross_kv.begin(), fusion.cross_kv.end(), has_bias);
        KernelDescription gemm(bias ? "cublaslt_gemm_cross_kv+bias" : "cublaslt_gemm_cross_kv",
                               step(first));
        gemm.read("f16", {a, d}).read("f16", {caches, d, d});
        if (bias) gemm.read("f16", {caches, d});
        const auto& cache = in(fusion.cross_kv.front().write, 0).shape;  // [1, H, Audio, Dh]
        kernels.push_back(
            gemm.write_part("f16", {caches, cache[1], cache[2], cache[3]}, caches * a * d * 2)
                .flops(caches * 2 * a * d * d)
                .done());
        return kernels;
    }
    for (const cuda::CrossKvWrite& w : fusion.cross_kv) {
        const PlanStep& linear = step(w.linear);
        const bool bias = has_bias(w);
        const auto& cache = in(w.write, 0).shape;  // [B, H, Audio, Dh]
        for (int64_t b = 0; b < xs[0]; ++b) {
            KernelDescription gemm(bias ? "cublaslt_gemm_heads+bias" : "cublaslt_gemm_heads",
                                   linear);
            gemm.read("f16", {a, d}).read("f16", {d, d});
            if (bias) gemm.read("f16", {d});
            kernels.push_back(gemm.write_part("f16", cache, a * d * 2).flops(2 * a * d * d).done());
        }
    }
    return kernels;
}

}  // namespace

std::vector<PlanKernel> cuda_step_kernels(const ExecutionPlan& plan, size_t index,
                                          const std::vector<cuda::StepFusion>& fusions,
                                          bool fused_attention, const WeightBlocks& weight_blocks) {
    const PlanStep& step = plan.steps.at(index);
    if (step.alias) return {};  // a view: nothing runs
    if (!fusions.empty()) {
        const cuda::StepFusion& fusion = fusions.at(index);
        if (fusion.role == cuda::StepFusion::Role::skipped) return {};
        if (fusion.role == cuda::StepFusion::Role::fused_gemv) {
            return {fused_gemv_kernel(plan, fusion, weight_blocks)};
        }
        if (fusion.role == cuda::StepFusion::Role::encoder_attention) {
            return encoder_attention_kernels(plan, fusion);
        }
        if (fusion.role == cuda::StepFusion::Role::encoder_mlp) {
            return encoder_mlp_kernels(plan, fusion);
        }
        if (fusion.role == cuda::StepFusion::Role::cross_kv) return cross_kv_kernels(plan, fusion);
    }
    auto in = [&](size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))];
    };
    auto present = [&](size_t i) { return i < step.inputs.size() && in(i).kind != SlotKind::none; };
    // How the module holds each input: parameters as device_module.h says, caches f16.
    const InputDtype dtype = [&](size_t i) -> std::string {
        const Slot& slot = in(i);
        if (slot.kind == SlotKind::param) {
            return cuda::reads_param_as_f16(step.kind, i) ? "f16" : "f32";
        }
        if (slot.kind == SlotKind::state) return cuda::kCacheValueBytes == 2 ? "f16" : "f32";
        return slot_dtype(slot);
    };
    if (auto common = common_step_kernel(plan, step, dtype)) return {std::move(*common)};
    const Slot& out = plan.slots[static_cast<size_t>(step.output)];
    std::vector<PlanKernel> kernels;
    switch (step.kind) {
        case OpKind::conv1d: {
            const auto& xs = in(0).shape;  // [B, L, Cin]
            const auto& ws = in(1).shape;  // [Cout, Cin, K]
            const int64_t rows = xs[0] * out.shape[1];
            const std::vector<int64_t> cols = {rows, ws[1] * ws[2]};  // [B Lout, Cin K] f16
            kernels.push_back(
                KernelDescription("im2col_half", step).read("f32", xs).write("f16", cols).done());
            kernels.push_back(KernelDescription("cublas_gemm", step)
                                  .read("f16", cols)
                                  .read(dtype(1), ws)
                                  .write("f32", out.shape)
                                  .flops(2 * rows * cols[1] * ws[0])
                                  .done());
            if (present(2)) {
                kernels.push_back(KernelDescription("add_bias", step)
                                      .read("f32", out.shape)
                                      .read(dtype(2), in(2).shape)
                                      .write("f32", out.shape)
                                      .done());
            }
            return kernels;
        }
        case OpKind::linear: {
            const auto& xs = in(0).shape;  // [.., K]
            const auto& ws = in(1).shape;  // [N, K]
            const int64_t k = xs.back();
            const int64_t n = ws.at(0);
            const int64_t m = count(xs) / k;
            const auto bias = linear_bias_input(step);
            const bool has_bias = bias && present(*bias);
            const auto residual = linear_residual_input(step);
            const bool gelu = linear_gelu_epilogue(step);
            const std::string epilogue =
                std::string(gelu ? "+gelu" : "") + (residual ? "+residual" : "");
            const std::string weights = weight_dtype(plan, step, weight_blocks);
            if (cuda::linear_path(m) == cuda::LinearPath::gemv) {
                const bool columns =
                    cuda::gemv_kernel(k, cuda::old_kernels_enabled()) == cuda::GemvKernel::columns;
                const std::string kernel = weights != "f16" ? "gemv_" + weights
                                           : columns        ? "gemv_f16_columns"
                                                            : "gemv_f16";
                KernelDescription gemv(kernel + epilogue, step);
                gemv.read("f32", xs).read(weights, ws);
                if (has_bias) gemv.read(dtype(*bias), in(*bias).shape);
                if (residual) gemv.read("f32", in(*residual).shape);
                kernels.push_back(gemv.write("f32", out.shape).flops(2 * m * k * n).done());
                return kernels;
            }
            kernels.push_back(
                KernelDescription("to_half", step).read("f32", xs).write("f16", {m, k}).done());
            if (weights != "f16") {  // the blocks decoded into the scratch for the GEMM
                kernels.push_back(KernelDescription("dequantize_blocks_f16", step)
                                      .read(weights, ws)
                                      .write("f16", ws)
                                      .done());
            }
            kernels.push_back(KernelDescription("cublas_gemm", step)
                                  .read("f16", {m, k})
                                  .read(dtype(1), ws)
                                  .write("f32", out.shape)
                                  .flops(2 * m * k * n)
                                  .done());
            if (has_bias || gelu || residual) {
                KernelDescription finish("finish_linear" + epilogue, step);
                finish.read("f32", out.shape);
                if (has_bias) finish.read(dtype(*bias), in(*bias).shape);
                if (residual) finish.read("f32", in(*residual).shape);
                kernels.push_back(finish.write("f32", out.shape).done());
            }
            return kernels;
        }
        case OpKind::attention: {
            const auto& qs = in(0).shape;  // [B, H, Q, Dh]
            const auto& ks = in(1).shape;  // [B, H, K, Dh]
            const int64_t bh = qs[0] * qs[1];
            const int64_t q_len = qs[2];
            const int64_t k_len = ks[2];
            const int64_t dh = qs[3];
            const bool k_cached = in(1).kind == SlotKind::state;
            const bool v_cached = in(2).kind == SlotKind::state;
            const bool mask = present(3);
            const int64_t flops = 4 * bh * q_len * k_len * dh;  // q k^T and p v
            // A cache the plan reads and does not write (the cross caches of a step or prefill)
            // is one copy that every row of a beam reads: one row's bytes.
            const bool shared = k_cached && v_cached && qs[0] > 1 &&
                                !cuda::old_kernels_enabled().cross_caches &&
                                !writes_state(plan, in(1).path) && !writes_state(plan, in(2).path);
            const std::vector<int64_t> ks_read =
                shared ? std::vector<int64_t>{1, ks[1], ks[2], ks[3]} : ks;
            const std::vector<int64_t> vs_read =
                shared ? std::vector<int64_t>{1, in(2).shape[1], in(2).shape[2], in(2).shape[3]}
                       : in(2).shape;
            const cuda::AttentionPath path =
                cuda::attention_path(q_len, k_len, dh, k_cached, v_cached,
                                     fused_attention && cuda::flash_attention_fits(dh));
            const bool one_query = path == cuda::AttentionPath::one_query_f16 ||
                                   path == cuda::AttentionPath::one_query_f32;
            if (one_query && cuda::one_query_kernels(bh, dh, cuda::old_kernels_enabled()) ==
                                 cuda::OneQueryKernels::split_keys) {
                // Blocks of 64 keys write partial softmax results [BH, spans, Dh + 2] f32 that the
                // last block of each head reads back and merges (its count per head left out).
                // Keys the mask hides are not read: a step reads the self caches up to pos only,
                // fewer bytes than listed here (all K positions).
                const std::vector<int64_t> partials = {bh, cuda::split_key_spans(k_len), dh + 2};
                KernelDescription split(path == cuda::AttentionPath::one_query_f16
                                            ? "attend_split_keys_f16"
                                            : "attend_split_keys_f32",
                                        step);
                split.read("f32", qs).read(dtype(1), ks_read).read(dtype(2), vs_read);
                if (mask) split.read(dtype(3), in(3).shape);
                split.read("f32", partials).write("f32", partials).write("f32", out.shape);
                kernels.push_back(split.flops(flops).done());
                return kernels;
            }
            if (one_query) {
                KernelDescription one(path == cuda::AttentionPath::one_query_f16
                                          ? "attend_one_query_f16"
                                          : "attend_one_query_f32",
                                      step);
                one.read("f32", qs).read(dtype(1), ks_read).read(dtype(2), vs_read);
                if (mask) one.read(dtype(3), in(3).shape);
                kernels.push_back(one.write("f32", out.shape).flops(flops).done());
                return kernels;
            }
            // q, and keys and values not already f16 caches, as f16 operands.
            kernels.push_back(
                KernelDescription("to_half", step).read("f32", qs).write("f16", qs).done());
            if (!k_cached) {
                kernels.push_back(
                    KernelDescription("to_half", step).read("f32", ks).write("f16", ks).done());
            }
            if (!v_cached) {
                kernels.push_back(KernelDescription("to_half", step)
                                      .read("f32", in(2).shape)
                                      .write("f16", in(2).shape)
                                      .done());
            }
            if (path == cuda::AttentionPath::fused) {
                KernelDescription flash("flash_attention", step);
                flash.read("f16", qs).read("f16", ks_read).read("f16", vs_read);
                if (mask) flash.read(dtype(3), in(3).shape);
                kernels.push_back(flash.write("f32", out.shape).flops(flops).done());
                return kernels;
            }
            const std::vector<int64_t> scores = {bh, q_len, k_len};
            kernels.push_back(KernelDescription("cublas_gemm_batched", step)
                                  .read("f16", qs)
                                  .read("f16", ks_read)
                                  .write("f32", scores)
                                  .flops(flops / 2)
                                  .done());
            KernelDescription softmax("softmax_rows_half", step);
            softmax.read("f32", scores);
            if (mask) softmax.read(dtype(3), in(3).shape);
            kernels.push_back(softmax.write("f16", scores).done());
            kernels.push_back(KernelDescription("cublas_gemm_batched", step)
                                  .read("f16", scores)
                                  .read("f16", vs_read)
                                  .write("f32", out.shape)
                                  .flops(flops / 2)
                                  .done());
            return kernels;
        }
        default:
            break;
    }
    throw std::logic_error("the CUDA plan listing has no kernel for op " +
                           std::string(program::op_kind_name(step.kind)));
}

}  // namespace earshot::backend
