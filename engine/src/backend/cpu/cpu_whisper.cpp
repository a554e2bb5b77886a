// CpuWhisper: the weights (f16 matrices stay f16, quantized ones in their blocks, see
// cpu_weights.h) and one plan per (entry,
// binding), prepared once with its params resolved; the caches and the step interpreter that runs
// a plan are CpuWhisper::Impl's other parts (cpu_whisper_impl.h).
#include "earshot/engine/backend/cpu_whisper.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "backend/cpu/cpu_whisper_impl.h"
#include "backend/cpu/quant/block_dot.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/model/whisper_model.h"

namespace earshot::backend {

using program::OpKind;

namespace {

using program::shape_str;

// Whether a step reads input `i` in a way an f16 or block matrix serves directly.
bool reads_half(const PlanStep& step, size_t i) {
    return i == 1 && (step.kind == OpKind::linear || step.kind == OpKind::embedding);
}

}  // namespace

const ExecutionPlan& CpuWhisper::Impl::plan_for(const std::string& entry,
                                                const program::DimValues& extra) {
    const ExecutionPlan& plan = plans.plan(entry, batch, extra);
    if (!prepared.contains(&plan)) {
        prepared.emplace(&plan, prepare(plan));
        plan_entries.emplace(&plan, entry);
    }
    return plan;
}

CpuWhisper::Impl::Prepared CpuWhisper::Impl::prepare(const ExecutionPlan& plan) {
    Prepared result;
    result.params.assign(plan.slots.size(), nullptr);
    result.form.assign(plan.slots.size(), ParamForm::f32);
    std::vector<uint8_t> needs_f32(plan.slots.size(), 0);
    for (const PlanStep& step : plan.steps) {
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            if (!reads_half(step, i) || step.alias) {
                needs_f32[static_cast<size_t>(step.inputs[i])] = 1;
            }
        }
        const Slot& out = plan.slots[static_cast<size_t>(step.output)];
        if (out.kind == SlotKind::state) result.unshared_states.push_back(out.path);
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            const Slot& read = plan.slots[static_cast<size_t>(step.inputs[i])];
            const bool kv = step.kind == OpKind::attention && (i == 1 || i == 2);
            if (read.kind == SlotKind::state && !kv) result.unshared_states.push_back(read.path);
            const bool written =
                i == 0 && (step.kind == OpKind::write_span || step.kind == OpKind::write_at);
            if (read.kind == SlotKind::state && !kv && !written) {
                result.reads_state_values = true;
            }
        }
    }
    for (size_t s = 0; s < plan.slots.size(); ++s) {
        const Slot& slot = plan.slots[s];
        if (slot.kind != SlotKind::param || !weights.contains(slot.path)) continue;
        const int64_t held = weights.element_count(slot.path);
        if (held != element_count(slot.shape)) {
            throw std::runtime_error("parameter " + slot.path + " holds " + std::to_string(held) +
                                     " values, the plan expects " + shape_str(slot.shape));
        }
        const bool direct = needs_f32[s] == 0;
        if (const uint16_t* half = direct ? weights.half(slot.path) : nullptr) {
            result.form[s] = ParamForm::f16;
            result.params[s] = half;
        } else if (const cpu::BlockMatrix* blocks = direct ? weights.blocks(slot.path) : nullptr) {
            result.form[s] = ParamForm::blocks;
            result.params[s] = blocks;
        } else {
            result.params[s] = weights.f32(slot.path);
        }
    }
    return result;
}

CpuWhisper::CpuWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch)
    : CpuWhisper(checkpoint, batch, CacheStorage::f32) {}

CpuWhisper::CpuWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch,
                       CacheStorage caches)
    : impl_(std::make_unique<Impl>(checkpoint.binding)) {
    if (batch < 1) throw std::invalid_argument("batch must be at least 1");
    cpu::best_block_dot_isa();  // a bad EARSHOT_CPU_ISA is refused here, not at the first step
    impl_->batch = batch;
    impl_->cache_storage = caches;
    impl_->binding.values.dims["Batch"] = batch;
    impl_->weights = cpu::CpuWeights(checkpoint);
    impl_->allocate_states();
}

void CpuWhisper::resize_batch(int64_t batch) {
    if (batch < 1) throw std::invalid_argument("batch must be at least 1");
    impl_->batch = batch;
    impl_->binding.values.dims["Batch"] = batch;
    impl_->allocate_states();
}

void CpuWhisper::expand_batch(int64_t rows) {
    if (rows < 1) throw std::invalid_argument("batch must be at least 1");
    const std::vector<int64_t> source(static_cast<size_t>(rows), 0);
    impl_->gather_rows(source, rows);
}

void CpuWhisper::reorder_batch(std::span<const int64_t> source_rows) {
    if (static_cast<int64_t>(source_rows.size()) != impl_->batch) {
        throw std::invalid_argument("reorder_batch needs one source row per row of the batch");
    }
    impl_->gather_rows(source_rows, impl_->batch);
}

CacheStorage CpuWhisper::cache_storage() const { return impl_->cache_storage; }

int64_t CpuWhisper::cache_bytes() const {
    int64_t bytes = 0;
    for (const auto& [path, state] : impl_->states) {
        const int64_t rows = state.shared ? 1 : impl_->batch;
        bytes += rows * state.heads * state.filled * state.dh * state.value_bytes;
    }
    return bytes;
}

int64_t CpuWhisper::scratch_bytes() const {
    return static_cast<int64_t>((impl_->arena.capacity() + impl_->conv_scratch.capacity()) *
                                sizeof(float));
}

CpuWhisper::~CpuWhisper() = default;
CpuWhisper::CpuWhisper(CpuWhisper&&) noexcept = default;
CpuWhisper& CpuWhisper::operator=(CpuWhisper&&) noexcept = default;

void CpuWhisper::set_profiling(bool on) { impl_->profiling = on; }

const std::vector<StepTiming>& CpuWhisper::last_timings() const { return impl_->timings; }

void CpuWhisper::set_taps(TapSet* taps) { impl_->taps = taps; }

void CpuWhisper::set_threads(int threads) {
    if (threads < 0) {
        throw std::invalid_argument("a CPU backend needs at least 1 thread, not " +
                                    std::to_string(threads));
    }
    impl_->own_pool = threads == 0 ? nullptr : std::make_unique<cpu::ThreadPool>(threads);
}

void CpuWhisper::set_weight_residency(WeightResidency residency) { impl_->residency = residency; }

int CpuWhisper::threads() const {
    return impl_->own_pool ? impl_->own_pool->size() : cpu::ThreadPool::shared_threads();
}

std::vector<TappableEdge> CpuWhisper::tappable_edges(const std::string& entry, int64_t tokens) {
    const ExecutionPlan& plan =
        impl_->plan_for(entry, entry_dims(impl_->binding, entry, 1, tokens));
    return list_tappable_edges(plan, impl_->plans.graph(entry));
}

const model::WhisperBinding& CpuWhisper::binding() const { return impl_->binding; }
int64_t CpuWhisper::batch() const { return impl_->batch; }

HostTensor CpuWhisper::encode(const HostTensor& mel) {
    require_rank(mel, 3, "encode: mel [B, Mels, Frames]");
    const auto& plan = impl_->plan_for("encode", {{"B", mel.dim(0)}});
    return impl_->run(plan, {&mel}, 0);
}

HostTensor CpuWhisper::decode(const HostTensor& tokens, const HostTensor& audio) {
    require_rank(tokens, 2, "decode: tokens [B, S]");
    require_rank(audio, 3, "decode: audio [B, A, D]");
    const auto& plan = impl_->plan_for(
        "decode", {{"B", tokens.dim(0)}, {"S", tokens.dim(1)}, {"A", audio.dim(1)}});
    return impl_->run(plan, {&tokens, &audio}, 0);
}

HostTensor CpuWhisper::listen(const HostTensor& mel) {
    require_rank(mel, 3, "listen: mel [Batch, Mels, Frames]");
    HostTensor audio = impl_->run(impl_->plan_for("listen", {}), {&mel}, 0);
    impl_->release_scratch();
    if (impl_->residency == WeightResidency::encoder_dropped_while_decoding) {
        impl_->weights.drop_mapped_pages("encoder_layers.");
    }
    return audio;
}

HostTensor CpuWhisper::prefill(const HostTensor& tokens, CrossAttentionRequest* cross_attention) {
    require_rank(tokens, 2, "prefill: tokens [Batch, S]");
    const auto& plan = impl_->plan_for("prefill", {{"S", tokens.dim(1)}});
    if (cross_attention == nullptr) return impl_->run(plan, {&tokens}, 0);
    const auto& dims = impl_->binding.values.dims;
    require_decoder_heads(cross_attention->heads, dims.at("DecoderLayers"), dims.at("Heads"));
    cross_attention->weights =
        HostTensor::f32({impl_->batch, static_cast<int64_t>(cross_attention->heads.size()),
                         tokens.dim(1), model::audio_positions(dims)});
    impl_->cross_attention = cross_attention;
    struct Forget {
        Impl& impl;
        ~Forget() { impl.cross_attention = nullptr; }
    } forget{*impl_};
    return impl_->run(plan, {&tokens}, 0);
}

HostTensor CpuWhisper::step(const HostTensor& token, int32_t pos) {
    require_rank(token, 2, "step: token [Batch, 1]");
    return impl_->run(impl_->plan_for("step", {}), {&token}, pos);
}

std::string cpu_block_kernels() {
    return std::string(cpu::block_dot_isa_name(cpu::best_block_dot_isa()));
}

}  // namespace earshot::backend
