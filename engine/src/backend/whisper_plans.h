// WhisperPlans: what every backend of the Whisper program shares on the host: each entry traced
// once, each (entry, binding) planned once, the decoder caches' shapes, and the checks of the
// tensors an entry is called with. Backends differ only in how they execute a plan.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/plan.h"
#include "earshot/engine/model/whisper_binding.h"

namespace earshot::backend {

// One decoder cache: `decoder_layers.3.self_k` and its shape [Batch, Heads, MaxTokens, D / Heads]
// (cross caches: Audio positions instead of MaxTokens).
struct CacheShape {
    std::string path;
    std::vector<int64_t> shape;
    int64_t elements() const;
};

class WhisperPlans {
public:
    explicit WhisperPlans(const model::WhisperBinding& binding) : binding_(binding) {}

    // The plan of `entry` with Batch = `batch` and the entry's own generics (`extra`, e.g.
    // {"S", 4}); planned on first use and kept.
    const ExecutionPlan& plan(const std::string& entry, int64_t batch,
                              const program::DimValues& extra);

    // Every decoder cache under Batch = `batch`, in layer order.
    std::vector<CacheShape> cache_shapes(int64_t batch) const;

    const model::WhisperBinding& binding() const { return binding_; }
    // The traced graph of `entry` (traced on first use and kept).
    const program::Graph& graph(const std::string& entry);

private:
    model::WhisperBinding binding_;
    std::map<std::string, program::Graph> graphs_;  // traced once per entry
    std::map<std::string, ExecutionPlan> plans_;    // planned once per (entry, binding)
};

// The generics an entry takes besides Batch, at `batch` rows of `tokens` tokens: encode's B,
// prefill's S, decode's B, S and A (the audio positions); none for listen and step.
program::DimValues entry_dims(const model::WhisperBinding& binding, const std::string& entry,
                              int64_t batch, int64_t tokens);

// std::invalid_argument "<what> must have rank N, got [..]" unless `t` has rank `rank`.
void require_rank(const HostTensor& t, size_t rank, const char* what);

// std::invalid_argument naming the input when a tensor's shape differs from the planned one.
void check_inputs(const ExecutionPlan& plan, const std::vector<const HostTensor*>& inputs);

// The element count of a shape (or of dims [begin, end)).
int64_t element_count(const std::vector<int64_t>& shape, size_t begin = 0, size_t end = SIZE_MAX);

}  // namespace earshot::backend
