// Resolving a TapSet against a plan, and filling a tapped value from host bytes (tap_copy.h).
#include "tap_copy.h"

#include <chrono>
#include <cstring>

#include "earshot/engine/program/types.h"

namespace earshot::backend {

ResolvedTaps resolve_taps(const ExecutionPlan& plan, const program::Graph& graph,
                          const TapSet& taps) {
    ResolvedTaps resolved;
    resolved.generation = taps.generation();
    resolved.after.resize(plan.steps.size());
    std::vector<int32_t> minus;
    const std::vector<TappableEdge> edges = listed_edges(plan, graph, minus);
    for (size_t i = 0; i < taps.names().size(); ++i) {
        const TappableEdge* edge = find_edge(edges, taps.names()[i]);
        if (edge == nullptr) continue;
        const int32_t minus_slot = minus[static_cast<size_t>(edge - edges.data())];
        resolved.after[static_cast<size_t>(edge->step)].push_back({i, edge->slot, minus_slot});
        resolved.any = true;
    }
    return resolved;
}

namespace {
// fill_tapped's time on each thread: a backend runs (and copies its taps) on its caller's.
thread_local uint64_t fill_ns = 0;
}  // namespace

void fill_tapped(TappedValue& value, const ExecutionPlan& plan, const Slot& slot, const void* bytes,
                 int32_t pos, const float* minus) {
    const auto started = std::chrono::steady_clock::now();
    if (value.tensor.kind() != HostTensor::Kind::f32 || value.tensor.shape() != slot.shape ||
        value.tensor.numel() == 0) {
        value.tensor = HostTensor::f32(slot.shape);
    }
    float* out = value.tensor.f32_values().data();
    const auto n = static_cast<size_t>(value.tensor.numel());
    switch (slot.dtype) {
        case program::DType::i32: {
            const auto* in = static_cast<const int32_t*>(bytes);
            for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
            break;
        }
        case program::DType::boolean: {
            const auto* in = static_cast<const uint8_t*>(bytes);
            for (size_t i = 0; i < n; ++i) out[i] = in[i] != 0 ? 1.0F : 0.0F;
            break;
        }
        default:
            std::memcpy(out, bytes, n * sizeof(float));
            break;
    }
    if (minus != nullptr) {
        for (size_t i = 0; i < n; ++i) out[i] -= minus[i];
    }
    value.filled = true;
    value.entry = plan.entry;
    value.position = -1;
    for (const Slot& s : plan.slots) {
        if (s.kind == SlotKind::input && s.scalar) value.position = pos;
    }
    value.dtype = std::string(program::dtype_name(slot.dtype));
    ++value.refreshes;
    fill_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now() - started)
                                         .count());
}

uint64_t fill_tapped_ns_on_this_thread() { return fill_ns; }

}  // namespace earshot::backend
