// CudaWhisper's host side: the module and device chosen, weights converted and uploaded once in
// the storage the plans read them in, inputs and positions checked as the CPU backend checks
// them, plans prepared once and run on the device (a prefill keeping cross-attention names the
// attention steps and heads whose probabilities the module copies back). No CUDA header here.
#include "earshot/engine/backend/cuda_whisper.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>

#include "backend/tap_copy.h"
#include "backend/whisper_plans.h"
#include "cuda_launch_rules.h"
#include "device_module.h"
#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/model/whisper_model.h"
#include "module_loader.h"

namespace earshot::backend {

using program::OpKind;

namespace {

// How the plans read each parameter: f16 for GEMM weights and the embedding table, f32 for the
// rest. Read from the plans themselves, so a new op or parameter cannot be missed.
struct ParamUse {
    bool f16 = false;
    bool f32 = false;
    bool f16_not_linear = false;  // read as f16 by a conv1d or an embedding
    bool step_linear = false;     // the weight of a linear of the decoder step
};

void collect_uses(const ExecutionPlan& plan, std::map<std::string, ParamUse>& uses,
                  bool decoder_step) {
    for (const PlanStep& step : plan.steps) {
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            const Slot& slot = plan.slots[static_cast<size_t>(step.inputs[i])];
            if (slot.kind != SlotKind::param) continue;
            ParamUse& use = uses[slot.path];
            const bool half = cuda::reads_param_as_f16(step.kind, i);
            (half ? use.f16 : use.f32) = true;
            use.f16_not_linear = use.f16_not_linear || (half && step.kind != OpKind::linear);
            use.step_linear =
                use.step_linear || (decoder_step && half && step.kind == OpKind::linear);
        }
    }
}

// Whether the module keeps `weight` as its quantized blocks (issue 34): q8_0, q5_0 and q4_0
// weights of the decoder step's linears that nothing reads otherwise (the embedding table, also
// the logits' weight, stays f16); the module's GEMVs read them directly. Every other quantized
// weight is decoded to f16 here, as before.
bool kept_as_blocks(const checkpoint::Weight& weight, const ParamUse& use) {
    using checkpoint::GgmlType;
    if (weight.dtype != checkpoint::WeightDType::ggml_blocks) return false;
    if (weight.blocks != GgmlType::q8_0 && weight.blocks != GgmlType::q5_0 &&
        weight.blocks != GgmlType::q4_0) {
        return false;
    }
    return use.step_linear && !use.f32 && !use.f16_not_linear && weight.shape.size() == 2;
}

// The blocks of `weight` checked against its shape before they go to the device: whole blocks per
// row, and exactly the bytes those blocks take (checkpoint/ggml_blocks.h's layouts).
void check_blocks(const checkpoint::Weight& weight) {
    const checkpoint::GgmlBlockLayout layout = checkpoint::ggml_block_layout(weight.blocks);
    const auto k = static_cast<uint64_t>(weight.shape.back());
    const uint64_t want = weight.element_count() / layout.elements * layout.bytes;
    if (k % layout.elements != 0 || weight.bytes.size() != want) {
        throw std::invalid_argument(
            weight.path + ": " + std::to_string(weight.bytes.size()) + " bytes of " +
            std::string(checkpoint::ggml_type_name(weight.blocks)) + " blocks for rows of " +
            std::to_string(k) + " values (" + std::to_string(want) + " bytes expected)");
    }
}

}  // namespace

struct CudaWhisper::Impl {
    explicit Impl(const model::WhisperBinding& bound) : binding(bound), plans(bound) {}

    model::WhisperBinding binding;
    int64_t batch = 1;
    CudaDevice device;
    WhisperPlans plans;
    std::unique_ptr<cuda::DeviceModel> model;
    std::set<std::string> params;                             // paths uploaded
    std::map<std::string, checkpoint::GgmlType> block_types;  // the params kept as blocks
    std::set<std::string> per_row;                            // per_row_caches(), found once
    bool per_row_known = false;
    // A plan the module has prepared: its handle, and the steps whose host values (token ids,
    // pos) are checked before each run, found once instead of on every token.
    struct Prepared {
        int handle = -1;
        std::vector<const PlanStep*> checked;
    };
    std::map<const ExecutionPlan*, Prepared> prepared;
    bool profiling = false;
    std::vector<StepTiming> timings;
    // EARSHOT_CUDA_OLD_KERNELS=host_selection: steps copy their logits back (chooses_on_device).
    bool host_selection = cuda::old_kernels_enabled().host_selection;

    TapSet* taps = nullptr;
    std::map<const ExecutionPlan*, ResolvedTaps> tap_plans;
    std::map<const ExecutionPlan*, std::string> plan_entries;  // "encode", ...

    const ExecutionPlan& plan_for(const std::string& entry, const program::DimValues& extra) {
        const ExecutionPlan& plan = plans.plan(entry, batch, extra);
        plan_entries.emplace(&plan, entry);
        return plan;
    }

    // The attached taps' copies for `plan` (resolved once per TapSet change), or null.
    const ResolvedTaps* tap_plan(const ExecutionPlan& plan) {
        if (taps == nullptr || taps->empty()) return nullptr;
        auto found = tap_plans.find(&plan);
        if (found == tap_plans.end() || found->second.generation != taps->generation()) {
            ResolvedTaps resolved = resolve_taps(plan, plans.graph(plan_entries.at(&plan)), *taps);
            found = tap_plans.insert_or_assign(&plan, std::move(resolved)).first;
        }
        return found->second.any ? &found->second : nullptr;
    }

    void upload(const model::WhisperCheckpoint& checkpoint) {
        std::map<std::string, ParamUse> uses;
        collect_uses(plan_for("listen", {}), uses, false);
        collect_uses(plan_for("prefill", {{"S", 1}}), uses, false);
        collect_uses(plan_for("step", {}), uses, true);
        for (const auto& weight : checkpoint.weights.weights()) {
            auto use = uses.find(weight.path);
            if (use == uses.end()) continue;  // read by no entry
            if (kept_as_blocks(weight, use->second)) {
                check_blocks(weight);
                cuda::HostParam param;
                param.path = weight.path;
                param.elements = static_cast<int64_t>(weight.element_count());
                param.blocks = weight.bytes.data();
                param.block_bytes = static_cast<int64_t>(weight.bytes.size());
                param.block_type = static_cast<int32_t>(weight.blocks);
                model->add_param(param);
                params.insert(weight.path);
                block_types[weight.path] = weight.blocks;
                continue;
            }
            std::vector<float> values(static_cast<size_t>(weight.element_count()));
            checkpoint::convert_to_f32(weight, values);
            // Exact for f16 checkpoints; bf16 and f32 ones round to nearest even here.
            std::vector<uint16_t> half(use->second.f16 ? values.size() : 0);
            if (!half.empty()) base::narrow_to_f16(values, half);
            cuda::HostParam param;
            param.path = weight.path;
            param.elements = static_cast<int64_t>(values.size());
            param.f16 = use->second.f16 ? half.data() : nullptr;
            param.f32 = use->second.f32 ? values.data() : nullptr;
            model->add_param(param);
            params.insert(weight.path);
        }
    }

    // The caches the decoder writes per row (prefill and step: self-attention); the others
    // (the cross caches, which only listen writes) may keep one copy for all the rows of a beam.
    std::set<std::string> per_row_caches() {
        std::set<std::string> written;
        for (const ExecutionPlan* plan :
             {&plan_for("prefill", {{"S", 1}}), &plan_for("step", {})}) {
            for (const PlanStep& step : plan->steps) {
                if ((step.kind != OpKind::write_span && step.kind != OpKind::write_at) ||
                    step.inputs.empty()) {
                    continue;
                }
                const Slot& slot = plan->slots[static_cast<size_t>(step.inputs[0])];
                if (slot.kind == SlotKind::state) written.insert(slot.path);
            }
        }
        return written;
    }

    // The caches zeroed for `rows` rows, then the batch `rows`: when the device runs out of
    // memory the model keeps its batch and caches (set_states changes nothing then).
    void allocate_states(int64_t rows) {
        if (!per_row_known) {
            per_row = per_row_caches();
            per_row_known = true;
        }
        std::vector<cuda::StateSpec> states;
        for (const CacheShape& cache : plans.cache_shapes(rows)) {
            states.push_back({cache.path, cache.elements(), rows,
                              per_row.count(cache.path) != 0 ? cuda::StateRows::own
                                                             : cuda::StateRows::shareable});
        }
        model->set_states(states);
        batch = rows;
        binding.values.dims["Batch"] = rows;
    }

    void gather_rows(std::span<const int64_t> source, int64_t rows) {
        for (int64_t from : source) {
            if (from < 0 || from >= batch) {
                throw std::out_of_range("row " + std::to_string(from) + " of a batch of " +
                                        std::to_string(batch));
            }
        }
        model->gather_rows(source, batch, rows);
        batch = rows;
        binding.values.dims["Batch"] = rows;
    }

    // The checks the CPU kernels make while running, made before anything is launched: token
    // ids inside the vocabulary, positions inside the tables and caches.
    // The steps check_values looks at: embeddings of input ids, row slices at pos, cache writes.
    static std::vector<const PlanStep*> value_checked_steps(const ExecutionPlan& plan) {
        std::vector<const PlanStep*> steps;
        for (const PlanStep& step : plan.steps) {
            if (step.inputs.empty()) continue;  // iota, causal_mask
            const Slot& first = plan.slots[static_cast<size_t>(step.inputs[0])];
            if ((step.kind == OpKind::embedding && first.kind == SlotKind::input) ||
                (step.kind == OpKind::slice_rows && step.inputs.size() > 1) ||
                step.kind == OpKind::write_at) {
                steps.push_back(&step);
            }
        }
        return steps;
    }

    void check_values(const ExecutionPlan& plan, const std::vector<const PlanStep*>& checked,
                      const std::vector<const HostTensor*>& inputs, int32_t pos) const {
        for (const PlanStep* checked_step : checked) {
            const PlanStep& step = *checked_step;
            const Slot& first = plan.slots[static_cast<size_t>(step.inputs[0])];
            if (step.kind == OpKind::embedding && first.kind == SlotKind::input) {
                const int64_t vocab = plan.slots[static_cast<size_t>(step.inputs.at(1))].shape[0];
                for (int32_t id : inputs.at(static_cast<size_t>(first.index))->i32_values()) {
                    if (id < 0 || id >= vocab) {
                        throw std::out_of_range("token id " + std::to_string(id) +
                                                " is outside [0, " + std::to_string(vocab) + ")");
                    }
                }
            }
            if (step.kind == OpKind::slice_rows && step.inputs.size() > 1) {
                const int64_t rows = first.shape[0];
                const int64_t length = step.ints.at("length");
                if (pos < 0 || pos + length > rows) {
                    throw std::out_of_range(plan.entry + ": position " + std::to_string(pos) +
                                            " + " + std::to_string(length) + " is outside the " +
                                            std::to_string(rows) + " positions of the table");
                }
            }
            if (step.kind == OpKind::write_at) {
                const auto axis = static_cast<size_t>(step.ints.at("axis"));
                const int64_t size = first.shape[axis];
                const int64_t count =
                    plan.slots[static_cast<size_t>(step.inputs.at(1))].shape[axis];
                if (pos < 0 || pos + count > size) {
                    throw std::out_of_range(plan.entry + ": writing positions " +
                                            std::to_string(pos) + " .. " +
                                            std::to_string(pos + count - 1) + " of a cache with " +
                                            std::to_string(size));
                }
            }
        }
    }

    // The attention step over each decoder layer's cross_k cache, by layer (the plan's
    // cross-attentions, whose probabilities a prefill can keep).
    static std::map<int64_t, int64_t> cross_attention_steps(const ExecutionPlan& plan) {
        static constexpr std::string_view kPrefix = "decoder_layers.";
        std::map<int64_t, int64_t> steps;
        for (size_t s = 0; s < plan.steps.size(); ++s) {
            const PlanStep& step = plan.steps[s];
            if (step.kind != OpKind::attention || step.inputs.size() < 2) continue;
            const Slot& keys = plan.slots[static_cast<size_t>(step.inputs[1])];
            if (keys.kind != SlotKind::state || !keys.path.starts_with(kPrefix) ||
                !keys.path.ends_with(".cross_k")) {
                continue;
            }
            steps[std::stoll(keys.path.substr(kPrefix.size()))] = static_cast<int64_t>(s);
        }
        return steps;
    }

    // `kept` not empty: the module also fills `weights` [Batch, kept, Q, K] (already shaped).
    HostTensor run(const ExecutionPlan& plan, const std::vector<const HostTensor*>& inputs,
                   int32_t pos, bool copy_output, std::span<const cuda::KeptAttention> kept = {},
                   HostTensor* weights = nullptr) {
        const auto found = prepare_run(plan, inputs, pos);
        const std::vector<cuda::HostInput> host = host_inputs(inputs);
        const Slot& out = plan.slots.at(static_cast<size_t>(plan.outputs.at(0)));
        HostTensor result = copy_output ? HostTensor::f32(out.shape) : HostTensor();
        std::vector<double> step_ms;
        void* output = copy_output ? result.f32_values().data() : nullptr;
        const int64_t output_bytes = copy_output ? out.size_bytes : 0;
        if (const ResolvedTaps* tapped = tap_plan(plan)) {
            // Only the tapped values leave the device, each after the step that writes it.
            std::vector<cuda::TapTransfer> transfers;
            std::vector<const TapCopy*> copies;
            std::vector<std::vector<std::byte>> staging;  // per transfer
            std::vector<size_t> value_transfer;           // per copy
            std::vector<size_t> minus_transfer;           // per copy: SIZE_MAX for none
            auto transfer = [&](size_t s, int32_t slot_id) {
                const Slot& slot = plan.slots[static_cast<size_t>(slot_id)];
                staging.emplace_back(static_cast<size_t>(slot.size_bytes));
                transfers.push_back(
                    {static_cast<int64_t>(s), slot_id, staging.back().data(), slot.size_bytes});
                return transfers.size() - 1;
            };
            for (size_t s = 0; s < tapped->after.size(); ++s) {
                for (const TapCopy& copy : tapped->after[s]) {
                    value_transfer.push_back(transfer(s, copy.slot));
                    minus_transfer.push_back(copy.minus_slot >= 0 ? transfer(s, copy.minus_slot)
                                                                  : SIZE_MAX);
                    copies.push_back(&copy);
                }
            }
            model->run_tapped(found->second.handle, host, pos, output, output_bytes, kept,
                              weights != nullptr ? weights->f32_values().data() : nullptr,
                              weights != nullptr ? weights->numel() * 4 : 0, transfers,
                              profiling ? &step_ms : nullptr);
            for (size_t k = 0; k < copies.size(); ++k) {
                const Slot& slot = plan.slots[static_cast<size_t>(copies[k]->slot)];
                const float* subtract =
                    minus_transfer[k] == SIZE_MAX
                        ? nullptr
                        : reinterpret_cast<const float*>(staging[minus_transfer[k]].data());
                fill_tapped(taps->value_at(copies[k]->request), plan, slot,
                            staging[value_transfer[k]].data(), pos, subtract);
            }
        } else if (weights != nullptr) {
            model->run_keeping_attention(found->second.handle, host, pos, output, output_bytes,
                                         kept, weights->f32_values().data(), weights->numel() * 4,
                                         profiling ? &step_ms : nullptr);
        } else {
            model->run(found->second.handle, host, pos, output, output_bytes,
                       profiling ? &step_ms : nullptr);
        }
        keep_timings(plan, step_ms);
        return result;
    }

    // A step's run with each row's token chosen on the device: `request.rows` choices back.
    std::vector<RowChoice> run_choosing(const ExecutionPlan& plan,
                                        const std::vector<const HostTensor*>& inputs, int32_t pos,
                                        const ChoiceRequest& request) {
        const auto found = prepare_run(plan, inputs, pos);
        const std::vector<cuda::HostInput> host = host_inputs(inputs);
        std::vector<RowChoice> chosen(request.rows.size());
        std::vector<double> step_ms;
        model->run_choosing(found->second.handle, host, pos, request, chosen.data(),
                            profiling ? &step_ms : nullptr);
        keep_timings(plan, step_ms);
        return chosen;
    }

    // The inputs checked, the plan prepared once (its handle, the steps whose values are checked).
    std::map<const ExecutionPlan*, Prepared>::iterator prepare_run(
        const ExecutionPlan& plan, const std::vector<const HostTensor*>& inputs, int32_t pos) {
        check_inputs(plan, inputs);
        auto found = prepared.find(&plan);
        if (found == prepared.end()) {
            found =
                prepared.emplace(&plan, Prepared{model->prepare(plan), value_checked_steps(plan)})
                    .first;
        }
        check_values(plan, found->second.checked, inputs, pos);
        return found;
    }

    static std::vector<cuda::HostInput> host_inputs(const std::vector<const HostTensor*>& inputs) {
        std::vector<cuda::HostInput> host(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) {
            const HostTensor& t = *inputs[i];
            host[i].data = t.kind() == HostTensor::Kind::f32
                               ? static_cast<const void*>(t.f32_values().data())
                               : static_cast<const void*>(t.i32_values().data());
            host[i].size_bytes = t.numel() * 4;
        }
        return host;
    }

    void keep_timings(const ExecutionPlan& plan, const std::vector<double>& step_ms) {
        timings.clear();
        if (!profiling) return;
        for (size_t s = 0; s < plan.steps.size() && s < step_ms.size(); ++s) {
            if (plan.steps[s].alias) continue;  // views run nothing
            timings.push_back({plan.steps[s].scope,
                               std::string(program::op_kind_name(plan.steps[s].kind)), step_ms[s],
                               plan.entry});
        }
    }
};

CudaWhisper::CudaWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch, int device,
                         const std::string& model_name)
    : impl_(std::make_unique<Impl>(checkpoint.binding)) {
    if (batch < 1) throw std::invalid_argument("batch must be at least 1");
    cuda::Module& module = cuda::load_module();
    const std::vector<CudaDevice> devices = module.devices();
    if (device < 0 || device >= static_cast<int>(devices.size())) {
        throw CudaError(CudaErrorKind::no_device,
                        "CUDA device " + std::to_string(device) + " does not exist (" +
                            std::to_string(devices.size()) + " device(s) present)");
    }
    impl_->device = devices[static_cast<size_t>(device)];
    impl_->batch = batch;
    impl_->binding.values.dims["Batch"] = batch;
    impl_->model = module.open(device, model_name);
    impl_->upload(checkpoint);
    impl_->allocate_states(batch);
}

CudaWhisper::~CudaWhisper() = default;
CudaWhisper::CudaWhisper(CudaWhisper&&) noexcept = default;
CudaWhisper& CudaWhisper::operator=(CudaWhisper&&) noexcept = default;

const model::WhisperBinding& CudaWhisper::binding() const { return impl_->binding; }
int64_t CudaWhisper::batch() const { return impl_->batch; }
const CudaDevice& CudaWhisper::device() const { return impl_->device; }

void CudaWhisper::resize_batch(int64_t batch) {
    if (batch < 1) throw std::invalid_argument("batch must be at least 1");
    impl_->allocate_states(batch);
}

void CudaWhisper::expand_batch(int64_t rows) {
    if (rows < 1) throw std::invalid_argument("batch must be at least 1");
    const std::vector<int64_t> source(static_cast<size_t>(rows), 0);
    impl_->gather_rows(source, rows);
}

void CudaWhisper::reorder_batch(std::span<const int64_t> source_rows) {
    if (static_cast<int64_t>(source_rows.size()) != impl_->batch) {
        throw std::invalid_argument("reorder_batch needs one source row per row of the batch");
    }
    impl_->gather_rows(source_rows, impl_->batch);
}

int64_t CudaWhisper::device_bytes() const { return impl_->model->device_bytes(); }
int64_t CudaWhisper::graph_capture_failures() const {
    return impl_->model->graph_capture_failures();
}

std::string CudaWhisper::kept_blocks(const std::string& path) const {
    const auto found = impl_->block_types.find(path);
    return found == impl_->block_types.end()
               ? std::string()
               : std::string(checkpoint::ggml_type_name(found->second));
}

void CudaWhisper::set_profiling(bool on) { impl_->profiling = on; }

void CudaWhisper::set_taps(TapSet* taps) { impl_->taps = taps; }

std::vector<TappableEdge> CudaWhisper::tappable_edges(const std::string& entry, int64_t tokens) {
    const ExecutionPlan& plan =
        impl_->plan_for(entry, entry_dims(impl_->binding, entry, 1, tokens));
    return list_tappable_edges(plan, impl_->plans.graph(entry));
}
const std::vector<StepTiming>& CudaWhisper::last_timings() const { return impl_->timings; }

HostTensor CudaWhisper::encode(const HostTensor& mel) {
    require_rank(mel, 3, "encode: mel [B, Mels, Frames]");
    return impl_->run(impl_->plan_for("encode", {{"B", mel.dim(0)}}), {&mel}, 0, true);
}

HostTensor CudaWhisper::decode(const HostTensor& tokens, const HostTensor& audio) {
    require_rank(tokens, 2, "decode: tokens [B, S]");
    require_rank(audio, 3, "decode: audio [B, A, D]");
    const auto& plan = impl_->plan_for(
        "decode", {{"B", tokens.dim(0)}, {"S", tokens.dim(1)}, {"A", audio.dim(1)}});
    return impl_->run(plan, {&tokens, &audio}, 0, true);
}

HostTensor CudaWhisper::listen(const HostTensor& mel) {
    require_rank(mel, 3, "listen: mel [Batch, Mels, Frames]");
    return impl_->run(impl_->plan_for("listen", {}), {&mel}, 0, true);
}

void CudaWhisper::listen_on_device(const HostTensor& mel) {
    require_rank(mel, 3, "listen: mel [Batch, Mels, Frames]");
    impl_->run(impl_->plan_for("listen", {}), {&mel}, 0, false);
}

HostTensor CudaWhisper::prefill(const HostTensor& tokens, CrossAttentionRequest* cross_attention) {
    require_rank(tokens, 2, "prefill: tokens [Batch, S]");
    const auto& plan = impl_->plan_for("prefill", {{"S", tokens.dim(1)}});
    if (cross_attention == nullptr) return impl_->run(plan, {&tokens}, 0, true);
    const auto& dims = impl_->binding.values.dims;
    require_decoder_heads(cross_attention->heads, dims.at("DecoderLayers"), dims.at("Heads"));
    const std::map<int64_t, int64_t> steps = Impl::cross_attention_steps(plan);
    std::vector<cuda::KeptAttention> kept;
    for (const AttentionHead& head : cross_attention->heads) {
        const auto found = steps.find(head.layer);
        if (found == steps.end()) {
            throw std::logic_error("prefill has no cross-attention in decoder layer " +
                                   std::to_string(head.layer));
        }
        kept.push_back({found->second, head.head});
    }
    // [Batch, heads, S, Audio], as the CPU backend returns them.
    cross_attention->weights =
        HostTensor::f32({impl_->batch, static_cast<int64_t>(cross_attention->heads.size()),
                         tokens.dim(1), model::audio_positions(dims)});
    return impl_->run(plan, {&tokens}, 0, true, kept, &cross_attention->weights);
}

HostTensor CudaWhisper::step(const HostTensor& token, int32_t pos) {
    require_rank(token, 2, "step: token [Batch, 1]");
    return impl_->run(impl_->plan_for("step", {}), {&token}, pos, true);
}

bool CudaWhisper::chooses_on_device() const {
    return !impl_->host_selection && (impl_->taps == nullptr || impl_->taps->empty());
}

std::vector<RowChoice> CudaWhisper::step_choosing(const HostTensor& token, int32_t pos,
                                                  const ChoiceRequest& request) {
    require_rank(token, 2, "step: token [Batch, 1]");
    return impl_->run_choosing(impl_->plan_for("step", {}), {&token}, pos, request);
}

}  // namespace earshot::backend
