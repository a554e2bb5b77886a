// WhisperPlans: tracing and planning once per entry and binding; cache shapes; input checks.
#include "whisper_plans.h"

#include <stdexcept>

#include "earshot/engine/model/whisper_model.h"

namespace earshot::backend {

int64_t element_count(const std::vector<int64_t>& shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t i = begin; i < shape.size() && i < end; ++i) n *= shape[i];
    return n;
}

int64_t CacheShape::elements() const { return element_count(shape); }

const ExecutionPlan& WhisperPlans::plan(const std::string& entry, int64_t batch,
                                        const program::DimValues& extra) {
    std::string key = entry + " Batch=" + std::to_string(batch);
    for (const auto& [name, value] : extra) key += " " + name + "=" + std::to_string(value);
    auto found = plans_.find(key);
    if (found != plans_.end()) return found->second;
    auto graph = graphs_.find(entry);
    if (graph == graphs_.end()) graph = graphs_.emplace(entry, model::trace_whisper(entry)).first;
    program::ConcreteBinding values = binding_.values;
    values.dims["Batch"] = batch;
    for (const auto& [name, value] : extra) values.dims[name] = value;
    return plans_.emplace(key, build_plan(graph->second, values)).first->second;
}

const program::Graph& WhisperPlans::graph(const std::string& entry) {
    auto found = graphs_.find(entry);
    if (found == graphs_.end()) found = graphs_.emplace(entry, model::trace_whisper(entry)).first;
    return found->second;
}

std::vector<CacheShape> WhisperPlans::cache_shapes(int64_t batch) const {
    const auto& dims = binding_.values.dims;
    const int64_t heads = dims.at("Heads");
    const int64_t dh = dims.at("D") / heads;
    const int64_t audio = model::audio_positions(dims);
    const int64_t max_tokens = dims.at("MaxTokens");
    std::vector<CacheShape> caches;
    for (int64_t layer = 0; layer < dims.at("DecoderLayers"); ++layer) {
        const std::string prefix = "decoder_layers." + std::to_string(layer) + ".";
        caches.push_back({prefix + "self_k", {batch, heads, max_tokens, dh}});
        caches.push_back({prefix + "self_v", {batch, heads, max_tokens, dh}});
        caches.push_back({prefix + "cross_k", {batch, heads, audio, dh}});
        caches.push_back({prefix + "cross_v", {batch, heads, audio, dh}});
    }
    return caches;
}

void require_rank(const HostTensor& t, size_t rank, const char* what) {
    if (t.shape().size() != rank) {
        throw std::invalid_argument(std::string(what) + " must have rank " + std::to_string(rank) +
                                    ", got " + t.shape_str());
    }
}

void check_inputs(const ExecutionPlan& plan, const std::vector<const HostTensor*>& inputs) {
    for (const Slot& slot : plan.slots) {
        if (slot.kind != SlotKind::input || slot.scalar) continue;
        const HostTensor& t = *inputs.at(static_cast<size_t>(slot.index));
        if (t.shape() != slot.shape) {
            throw std::invalid_argument(plan.entry + ": input " + std::to_string(slot.index) +
                                        " is " + t.shape_str() + ", expected " +
                                        program::shape_str(slot.shape));
        }
    }
}

program::DimValues entry_dims(const model::WhisperBinding& binding, const std::string& entry,
                              int64_t batch, int64_t tokens) {
    program::DimValues extra;
    if (entry == "encode") extra["B"] = batch;
    if (entry == "prefill") extra["S"] = tokens;
    if (entry == "decode") {
        extra = {{"B", batch}, {"S", tokens}, {"A", model::audio_positions(binding.values.dims)}};
    }
    return extra;
}

}  // namespace earshot::backend
