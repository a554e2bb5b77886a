// CudaDeviceModel's runs: each plan prepared once (its workspace layout, params per step input),
// a run's inputs bound and copied in, its steps launched, its output and step times read back.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/cuda_cross_kv_fusion.h"
#include "backend/cuda/cuda_encoder_fusions.h"
#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"
#include "kernels.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

using program::OpKind;

bool CudaDeviceModel::fused_attention(int64_t dh) const {
    return flash_enabled_ && kernels::flash_attention_fits(dh);
}

int64_t CudaDeviceModel::scratch_bytes(const ExecutionPlan& plan, const PlanStep& step) const {
    auto shape = [&](size_t i) -> const std::vector<int64_t>& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))].shape;
    };
    switch (step.kind) {
        case OpKind::linear:
            return align_up(count(shape(0)) * 2);
        case OpKind::conv1d: {
            const auto& out =
                plan.slots[static_cast<size_t>(step.output)].shape;  // [B, Lout, Cout]
            const auto& ws = shape(1);                               // [Cout, Cin, K]
            return align_up(out[0] * out[1] * ws[1] * ws[2] * 2);
        }
        case OpKind::attention: {
            const auto& qs = shape(0);  // [B, H, Q, Dh]
            const auto& ks = shape(1);  // [B, H, K, Dh]
            const int64_t bh = qs[0] * qs[1];
            const int64_t general =
                attention_scratch(bh, qs[2], ks[2], qs[3], fused_attention(qs[3])).total;
            if (qs[2] != 1) return general;
            // One query split over the keys: its partial results [BH, spans, Dh + 2] f32.
            const int64_t partials = split_keys_partial_floats(bh, ks[2], qs[3]) * 4;
            return std::max(general, align_up(partials));
        }
        default:
            return 0;
    }
}

int CudaDeviceModel::prepare(const ExecutionPlan& plan) {
    CUDA_CHECK(cudaSetDevice(device_));
    fed_ = Fed{};  // prepared_ may move, the workspace grow
    Prepared prepared;
    prepared.plan = &plan;
    prepared.fed_token_slot = fed_token_slot(plan);
    prepared.dependent_launches = dependent_launches_ && prepared.fed_token_slot >= 0;
    prepared.params.resize(plan.steps.size());
    prepared.weight_blocks.assign(plan.steps.size(), 0);
    int64_t scratch = 0;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const PlanStep& step = plan.steps[s];
        scratch = std::max(scratch, scratch_bytes(plan, step));
        if ((step.kind == OpKind::write_span || step.kind == OpKind::write_at) &&
            !step.inputs.empty()) {
            const Slot& written = plan.slots[static_cast<size_t>(step.inputs[0])];
            if (written.kind == SlotKind::state &&
                std::find(prepared.writes.begin(), prepared.writes.end(), written.path) ==
                    prepared.writes.end()) {
                prepared.writes.push_back(written.path);
            }
        }
        prepared.params[s].assign(step.inputs.size(), nullptr);
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            const Slot& slot = plan.slots[static_cast<size_t>(step.inputs[i])];
            if (slot.kind == SlotKind::state && states_.count(slot.path) == 0) {
                throw std::logic_error(plan.entry + " reads the cache " + slot.path +
                                       ", which the CUDA model does not hold");
            }
            if (slot.kind == SlotKind::state && !reads_cache_as_f16(step.kind, i)) {
                throw std::logic_error(
                    plan.entry + ": op " + std::to_string(static_cast<int>(step.kind)) +
                    " reads the cache " + slot.path + ", which the CUDA backend keeps as f16");
            }
            if (slot.kind != SlotKind::param) continue;
            auto found = params_.find(slot.path);
            if (found == params_.end()) continue;  // an absent optional parameter (a bias)
            const bool half = reads_param_as_f16(step.kind, i);
            if (half && found->second.blocks.get() != nullptr) {
                // Block weights: linears only, whose GEMV reads them and whose GEMM (many rows)
                // decodes them into the scratch first.
                if (step.kind != OpKind::linear || found->second.elements != count(slot.shape)) {
                    throw std::logic_error("parameter " + slot.path +
                                           " is on the device as blocks, which only a linear of " +
                                           "its shape reads");
                }
                prepared.params[s][i] = found->second.blocks.get();
                prepared.weight_blocks[s] = found->second.block_type;
                const int64_t k = slot.shape.back();
                const int64_t m = count(plan.slots[static_cast<size_t>(step.inputs[0])].shape) / k;
                if (linear_path(m) == LinearPath::gemm) {
                    scratch =
                        std::max(scratch, align_up(m * k * 2) + align_up(count(slot.shape) * 2));
                }
                continue;
            }
            const void* data = half ? found->second.f16_data() : found->second.f32.get();
            if (data == nullptr || found->second.elements != count(slot.shape)) {
                throw std::logic_error("parameter " + slot.path + " is not on the device as " +
                                       (half ? "f16" : "f32") + " with " +
                                       std::to_string(count(slot.shape)) + " values");
            }
            prepared.params[s][i] = data;
        }
    }
    // A decoder step's LayerNorms, linears and cache writes as fused GEMVs, unless
    // EARSHOT_CUDA_OLD_KERNELS asks for the separate launches (or the old GEMV).
    if (!old_kernels_.fusion && !old_kernels_.gemv) prepared.fusions = plan_step_fusions(plan);
    // One fused GEMV reads one kind of weights: a group stored otherwise runs unfused.
    unfuse_mixed_weights(prepared.fusions, [&prepared](int64_t t) {
        const int32_t blocks = prepared.weight_blocks[static_cast<size_t>(t)];
        return blocks == 0 ? std::string() : std::to_string(blocks);
    });
    // An encoder layer as 8 launches, unless EARSHOT_CUDA_OLD_KERNELS=encoder asks for its 27
    // (or EARSHOT_CUDA_FUSED_ATTENTION=0 for the attention through cuBLAS).
    if (!old_kernels_.encoder && flash_enabled_) {
        apply_encoder_fusions(plan, prepared.fusions, [&prepared](int64_t t) {
            const int32_t blocks = prepared.weight_blocks[static_cast<size_t>(t)];
            return blocks == 0 ? std::string() : std::to_string(blocks);
        });
        for (size_t s = 0; s < prepared.fusions.size(); ++s) {
            scratch = std::max(scratch, encoder_fusion_scratch_bytes(plan, prepared.fusions[s]));
            if (prepared.fusions[s].role == StepFusion::Role::encoder_attention)
                prepare_qkv(prepared, s);
        }
    }
    // listen's cross keys and values as 2 launches (one GEMM for all of them; 2 L B + 1 where
    // they do not line up), unless EARSHOT_CUDA_OLD_KERNELS=cross_kv asks for each linear, split
    // and write apart.
    if (!old_kernels_.cross_kv) {
        apply_cross_kv_fusions(plan, prepared.fusions, [&prepared](int64_t t) {
            const int32_t blocks = prepared.weight_blocks[static_cast<size_t>(t)];
            return blocks == 0 ? std::string() : std::to_string(blocks);
        });
        for (size_t s = 0; s < prepared.fusions.size(); ++s) {
            scratch = std::max(scratch, cross_kv_scratch_bytes(plan, prepared.fusions[s]));
            if (prepared.fusions[s].role == StepFusion::Role::cross_kv)
                prepare_cross_kv(prepared, s);
        }
    }
    int64_t top = align_up(plan.arena_bytes);
    prepared.scratch_offset = top;
    top += scratch;
    for (const Slot& slot : plan.slots) {
        if (slot.kind != SlotKind::input) continue;
        const auto index = static_cast<size_t>(slot.index);
        if (prepared.input_offsets.size() <= index) prepared.input_offsets.resize(index + 1, -1);
        if (slot.scalar) continue;
        prepared.input_offsets[index] = top;
        top += align_up(slot.size_bytes);
    }
    prepared.pos_offset = top;
    top += kAlignBytes;
    if (top > workspace_.bytes()) {
        // One workspace serves every plan (they run one at a time on one stream); it grows here,
        // when a plan is first prepared, and never while a plan runs.
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        workspace_.reset();
        workspace_ = DeviceBuffer(top, "the " + plan.entry + " workspace", model_name_);
    }
    prepared_.push_back(std::move(prepared));
    return static_cast<int>(prepared_.size() - 1);
}

int32_t CudaDeviceModel::fed_token_slot(const ExecutionPlan& plan) {
    int32_t found = -1;
    bool has_pos = false;
    for (size_t s = 0; s < plan.slots.size(); ++s) {
        const Slot& slot = plan.slots[s];
        if (slot.kind != SlotKind::input) continue;
        if (slot.scalar) {
            has_pos = true;
            continue;
        }
        // tokens [rows, 1] i32, the only tensor input
        const bool tokens = slot.dtype == program::DType::i32 && slot.shape.size() == 2 &&
                            slot.shape[1] == 1 && slot.size_bytes == slot.shape[0] * 4;
        if (!tokens || found >= 0) return -1;
        found = static_cast<int32_t>(s);
    }
    return has_pos ? found : -1;
}

std::vector<void*> CudaDeviceModel::bind(const Prepared& prepared,
                                         std::span<const HostInput> inputs, const int32_t& pos,
                                         std::byte* pinned) {
    const ExecutionPlan& plan = *prepared.plan;
    own_rows(prepared.writes);
    // What the last run_choosing of this plan left on the device, used once.
    const Fed fed = std::exchange(fed_, Fed{});
    const int32_t fed_slot = fed.prepared == &prepared ? prepared.fed_token_slot : -1;
    int64_t staged_bytes = 0;
    const auto upload = [&](void* device, const void* host, int64_t bytes) {
        if (pinned != nullptr) {
            std::memcpy(pinned + staged_bytes, host, static_cast<size_t>(bytes));
            host = pinned + staged_bytes;
            staged_bytes += align_up(bytes);
        }
        CUDA_CHECK(cudaMemcpyAsync(device, host, static_cast<size_t>(bytes), cudaMemcpyHostToDevice,
                                   stream_));
    };
    auto* base = workspace_.as<std::byte>();
    std::vector<void*> ptr(plan.slots.size(), nullptr);
    for (size_t s = 0; s < plan.slots.size(); ++s) {
        const Slot& slot = plan.slots[s];
        switch (slot.kind) {
            case SlotKind::input: {
                if (slot.scalar) {
                    ptr[s] = base + prepared.pos_offset;
                    break;
                }
                const auto index = static_cast<size_t>(slot.index);
                const HostInput& input = inputs[index];
                if (input.size_bytes != slot.size_bytes) {
                    throw std::invalid_argument(plan.entry + ": input " + std::to_string(index) +
                                                " holds " + std::to_string(input.size_bytes) +
                                                " bytes, the plan expects " +
                                                std::to_string(slot.size_bytes));
                }
                ptr[s] = base + prepared.input_offsets[index];
                const bool on_device =
                    static_cast<int32_t>(s) == fed_slot &&
                    input.size_bytes == static_cast<int64_t>(fed.tokens.size()) * 4 &&
                    std::memcmp(input.data, fed.tokens.data(),
                                static_cast<size_t>(input.size_bytes)) == 0;
                if (!on_device) upload(ptr[s], input.data, input.size_bytes);
                break;
            }
            case SlotKind::state: {
                const State& state = states_.at(slot.path);
                // [B, ...]: B rows, or one copy that every row reads.
                if (!state.shared && slot.shape.at(0) > state.capacity_rows) {
                    throw std::logic_error(plan.entry + " reads " + std::to_string(slot.shape[0]) +
                                           " rows of the cache " + slot.path + ", which holds " +
                                           std::to_string(state.capacity_rows));
                }
                ptr[s] = state.values;
                break;
            }
            case SlotKind::arena:
                ptr[s] = base + slot.offset_bytes;
                break;
            case SlotKind::param:  // resolved per step input (f16 or f32)
            case SlotKind::none:
                break;
        }
    }
    if (fed_slot < 0 || pos != fed.pos) upload(base + prepared.pos_offset, &pos, sizeof(pos));
    return ptr;
}

void CudaDeviceModel::finish(const Prepared& prepared, const std::vector<void*>& ptr, void* output,
                             int64_t output_bytes, std::vector<double>* step_ms) {
    const ExecutionPlan& plan = *prepared.plan;
    if (output != nullptr) {
        CUDA_CHECK(cudaMemcpyAsync(output, ptr[static_cast<size_t>(plan.outputs.at(0))],
                                   static_cast<size_t>(output_bytes), cudaMemcpyDeviceToHost,
                                   stream_));
    }
    // Once per call: an entry returns when its work is done (and its errors are known).
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (step_ms != nullptr) {
        step_ms->assign(plan.steps.size(), 0.0);
        for (size_t s = 0; s < plan.steps.size(); ++s) {
            float ms = 0.0F;
            CUDA_CHECK(cudaEventElapsedTime(&ms, prepared.events[s], prepared.events[s + 1]));
            (*step_ms)[s] = ms;
        }
    }
}

void CudaDeviceModel::run(int handle, std::span<const HostInput> inputs, int32_t pos, void* output,
                          int64_t output_bytes, std::vector<double>* step_ms) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared& prepared = prepared_.at(static_cast<size_t>(handle));
    const std::vector<void*> ptr = bind(prepared, inputs, pos);
    if (step_ms != nullptr) {
        run_step_by_step(prepared, ptr, {}, true);
    } else {
        launch_steps(prepared, ptr, workspace_.as<std::byte>() + prepared.scratch_offset);
    }
    finish(prepared, ptr, output, output_bytes, step_ms);
}

void CudaDeviceModel::run_tapped(int handle, std::span<const HostInput> inputs, int32_t pos,
                                 void* output, int64_t output_bytes,
                                 std::span<const KeptAttention> kept, float* weights,
                                 int64_t weights_bytes, std::span<const TapTransfer> taps,
                                 std::vector<double>* step_ms) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared& prepared = prepared_.at(static_cast<size_t>(handle));
    const ExecutionPlan& plan = *prepared.plan;
    for (const TapTransfer& tap : taps) {
        const bool known = tap.step >= 0 && tap.step < static_cast<int64_t>(plan.steps.size()) &&
                           tap.slot >= 0 && tap.slot < static_cast<int32_t>(plan.slots.size());
        if (!known || plan.slots[static_cast<size_t>(tap.slot)].kind != SlotKind::arena ||
            plan.slots[static_cast<size_t>(tap.slot)].size_bytes != tap.bytes) {
            throw std::invalid_argument(plan.entry + ": a tap names no arena value of " +
                                        std::to_string(tap.bytes) + " bytes at step " +
                                        std::to_string(tap.step));
        }
    }
    if (!kept.empty()) {
        check_kept(plan, kept, weights_bytes);
        if (kept_attention_.bytes() < weights_bytes) {
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            kept_attention_.reset();
            kept_attention_ =
                DeviceBuffer(weights_bytes, "the cross-attention weights", model_name_);
        }
    }
    const std::vector<void*> ptr = bind(prepared, inputs, pos);
    // Unfused while tapped: a fused GEMV skips writing a LayerNorm's output and computes a
    // group's earlier linears at its last one, after the step a tap copies from.
    unfused_run_ = !taps.empty();
    try {
        run_step_by_step(prepared, ptr, kept, step_ms != nullptr, taps);
    } catch (...) {
        unfused_run_ = false;
        throw;
    }
    unfused_run_ = false;
    if (!kept.empty() && weights_bytes > 0) {
        CUDA_CHECK(cudaMemcpyAsync(weights, kept_attention_.get(),
                                   static_cast<size_t>(weights_bytes), cudaMemcpyDeviceToHost,
                                   stream_));
    }
    finish(prepared, ptr, output, output_bytes, step_ms);
}

void CudaDeviceModel::run_keeping_attention(int handle, std::span<const HostInput> inputs,
                                            int32_t pos, void* output, int64_t output_bytes,
                                            std::span<const KeptAttention> kept, float* weights,
                                            int64_t weights_bytes, std::vector<double>* step_ms) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared& prepared = prepared_.at(static_cast<size_t>(handle));
    check_kept(*prepared.plan, kept, weights_bytes);
    if (kept_attention_.bytes() < weights_bytes) {
        // Only runs that keep weights use it, so ordinary runs never wait for this allocation.
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        kept_attention_.reset();
        kept_attention_ = DeviceBuffer(weights_bytes, "the cross-attention weights", model_name_);
    }
    const std::vector<void*> ptr = bind(prepared, inputs, pos);
    run_step_by_step(prepared, ptr, kept, step_ms != nullptr);
    if (weights_bytes > 0) {
        CUDA_CHECK(cudaMemcpyAsync(weights, kept_attention_.get(),
                                   static_cast<size_t>(weights_bytes), cudaMemcpyDeviceToHost,
                                   stream_));
    }
    finish(prepared, ptr, output, output_bytes, step_ms);
}

}  // namespace earshot::backend::cuda
