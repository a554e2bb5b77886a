// Where the time of a run went, per call and loop of a traced graph: a backend's profiled step
// scopes (`encoder_layers.2.forward > self_attn.forward`) mapped back to the graph's scopes.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "earshot/engine/program/graph.h"

namespace earshot::program {

// The time one executed step took, under the call-scope path an ExecutionPlan step records:
// call labels from the outermost in, joined by " > ", loop indices substituted as `.i`.
struct ScopeTiming {
    std::string scope;  // "" for a step outside every call
    double ms = 0.0;
};

// The innermost call scope of `graph` whose label path the step scope names, with any loop index
// standing for `[index]` (`encoder_layers.2.forward` names `encoder_layers[layer].forward`);
// kRootScope for "", -1 when no call matches. Two calls with the same path (a block called twice
// from one place in the source) cannot be told apart by their steps: the first one is returned.
ScopeId scope_of_step(const Graph& graph, std::string_view step_scope);

// For every call and loop scope that any timed step ran in, the share (0..1) of the total time
// of `timings` spent inside it, nested calls included. Steps whose scope matches no call count
// to the total only. Empty when the total is not positive.
std::map<ScopeId, double> scope_time_shares(const Graph& graph,
                                            std::span<const ScopeTiming> timings);

}  // namespace earshot::program
