// What every backend does with an attached TapSet: resolve its names against a plan once (which
// value to copy after which step), and fill a tapped value from a slot's bytes on the host.
#pragma once

#include <cstdint>
#include <vector>

#include "earshot/engine/backend/plan.h"
#include "earshot/engine/backend/tap.h"

namespace earshot::backend {

struct TapCopy {
    size_t request = 0;  // TapSet::values() index
    int32_t slot = -1;
    int32_t minus_slot = -1;  // subtracted from `slot`'s values (see listed_edges), or -1
};

struct ResolvedTaps {
    uint64_t generation = 0;                  // the TapSet::generation() resolved
    std::vector<std::vector<TapCopy>> after;  // per plan step: the values it completes
    bool any = false;                         // whether the plan has any asked name
};

// list_tappable_edges, and per listed edge the slot whose values are subtracted after the copy
// (-1: none). A linear whose result a fused residual add consumed has no bytes of its own: it is
// the fused step's output minus the residual input (which that step only reads), exact up to the
// f32 rounding of the sum.
std::vector<TappableEdge> listed_edges(const ExecutionPlan& plan, const program::Graph& graph,
                                       std::vector<int32_t>& minus_slots);

// Names the plan does not have are skipped (another entry may have them).
ResolvedTaps resolve_taps(const ExecutionPlan& plan, const program::Graph& graph,
                          const TapSet& taps);

// With `minus` (f32 values, as many) those are subtracted (see listed_edges).
// `value` takes the slot's `bytes` (its plan dtype: f32, i32 or bool bytes) as f32 under the
// slot's shape; entry, position (a plan with a scalar input: `pos`), dtype, filled, refreshes.
void fill_tapped(TappedValue& value, const ExecutionPlan& plan, const Slot& slot, const void* bytes,
                 int32_t pos, const float* minus = nullptr);

// The wall time fill_tapped has spent on the calling thread so far, in ns: what copying taps
// costs the thread that runs a backend (the tap benchmark's direct measure).
uint64_t fill_tapped_ns_on_this_thread();

}  // namespace earshot::backend
