// Taps: naming a plan's values as the traced graph draws them, finding a name (or the closest
// ones), and the TapSet that holds what a run copied.
#include "earshot/engine/backend/tap.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <variant>

#include "earshot/engine/model/whisper_binding.h"
#include "earshot/engine/program/types.h"
#include "tap_copy.h"
#include "whisper_plans.h"

namespace earshot::backend {

namespace {

using program::Graph;
using program::ScopeId;
using program::ScopeKind;
using LoopIndices = std::vector<std::pair<std::string, int64_t>>;

// `encoder_layers[layer].forward` with layer = 7 -> `encoder_layers[7].forward`.
std::string with_indices(std::string label, const LoopIndices& indices) {
    for (const auto& [index, value] : indices) {
        const std::string pattern = "[" + index + "]";
        for (auto at = label.find(pattern); at != std::string::npos; at = label.find(pattern)) {
            label.replace(at, pattern.size(), "[" + std::to_string(value) + "]");
        }
    }
    return label;
}

// The call path of `scope`: each call's label from the outermost in, joined by dots, the method
// of every call but the last left out (`decoder_layers[3].step > encoder_attn.forward > attend`
// -> `decoder_layers[3].encoder_attn.attend`); "" for the entry itself.
std::string call_path(const Graph& graph, ScopeId scope, const LoopIndices& indices) {
    std::vector<const program::Scope*> calls;
    for (ScopeId s = scope; s > 0; s = graph.scopes[static_cast<size_t>(s)].parent) {
        const auto& sc = graph.scopes[static_cast<size_t>(s)];
        if (sc.kind == ScopeKind::call) calls.push_back(&sc);
    }
    std::string path;
    for (size_t i = calls.size(); i-- > 0;) {
        std::string part = with_indices(calls[i]->label, indices);
        if (i > 0) {
            const size_t method = part.rfind('.');
            if (method == std::string::npos) continue;  // a call of the block's own function
            part.resize(method);
        }
        path += path.empty() ? part : "." + part;
    }
    return path;
}

// A value no other TapSet change has had, so that a backend's resolved names never match a
// different set of names by chance.
uint64_t next_generation() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
}

// `encoder_layers[layer].fc2.weight` with layer = 3 -> `encoder_layers.3.fc2.weight` (as the plan
// resolves parameter paths).
std::string resolved_path(std::string path, const LoopIndices& indices) {
    for (const auto& [index, value] : indices) {
        const std::string pattern = "[" + index + "]";
        for (auto at = path.find(pattern); at != std::string::npos; at = path.find(pattern)) {
            path.replace(at, pattern.size(), "." + std::to_string(value));
        }
    }
    return path;
}

struct FusedResidual {
    int32_t step = -1;
    int32_t residual_slot = -1;
};

// The plan step that computes linear `op` (its weight at the same resolved path) with a residual
// add fused in, when that residual is an arena value: the linear's own result is that step's
// output minus the residual.
std::optional<FusedResidual> fused_residual(const ExecutionPlan& plan, const Graph& graph,
                                            const program::Op& op, const LoopIndices& indices) {
    if (op.kind != program::OpKind::linear || op.inputs.size() < 2) return std::nullopt;
    const program::Op& weight = graph.producer(op.inputs[1]);
    if (weight.kind != program::OpKind::param) return std::nullopt;
    const std::string path = resolved_path(std::get<std::string>(weight.attr("path")), indices);
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const PlanStep& step = plan.steps[s];
        if (step.kind != program::OpKind::linear || step.inputs.size() < 2) continue;
        const Slot& w = plan.slots[static_cast<size_t>(step.inputs[1])];
        if (w.kind != SlotKind::param || w.path != path) continue;
        const auto residual = linear_residual_input(step);
        if (!residual || linear_gelu_epilogue(step)) return std::nullopt;
        const int32_t residual_slot = step.inputs[*residual];
        if (plan.slots[static_cast<size_t>(residual_slot)].kind != SlotKind::arena) {
            return std::nullopt;
        }
        return FusedResidual{static_cast<int32_t>(s), residual_slot};
    }
    return std::nullopt;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string TappableEdge::shape_str() const { return program::shape_str(shape); }

std::vector<TappableEdge> list_tappable_edges(const ExecutionPlan& plan, const Graph& graph) {
    std::vector<int32_t> minus;
    return listed_edges(plan, graph, minus);
}

std::vector<TappableEdge> listed_edges(const ExecutionPlan& plan, const Graph& graph,
                                       std::vector<int32_t>& minus_slots) {
    minus_slots.clear();
    // The step after which each arena slot is complete: the one writing it (a view: its own).
    std::map<int32_t, int32_t> writer;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const int32_t out = plan.steps[s].output;
        if (plan.slots[static_cast<size_t>(out)].kind == SlotKind::arena) {
            writer[out] = static_cast<int32_t>(s);
        }
    }
    // The calls each value is the result of, outermost first.
    std::map<program::ValueId, std::vector<ScopeId>> results;
    for (size_t s = 1; s < graph.scopes.size(); ++s) {
        const auto& sc = graph.scopes[s];
        if (sc.kind == ScopeKind::call && sc.result != program::kNoValue) {
            results[sc.result].push_back(static_cast<ScopeId>(s));
        }
    }
    for (auto& [value, scopes] : results) {
        std::stable_sort(scopes.begin(), scopes.end(), [&](ScopeId x, ScopeId y) {
            return graph.scopes[static_cast<size_t>(x)].call_depth <
                   graph.scopes[static_cast<size_t>(y)].call_depth;
        });
    }
    // Each op's place among the ops of the same name in its scope (`+#1`: the second `+`).
    std::vector<int> occurrence(graph.ops.size(), 0);
    {
        std::map<std::pair<ScopeId, std::string>, int> seen;
        for (size_t i = 0; i < graph.ops.size(); ++i) {
            occurrence[i] = seen[{graph.ops[i].scope, graph.ops[i].name}]++;
        }
    }
    std::vector<TappableEdge> edges;
    std::set<std::string> taken;
    for (const PlannedValue& planned : plan.values) {
        const auto& value = graph.values.at(static_cast<size_t>(planned.value));
        const program::Op& op = graph.ops.at(static_cast<size_t>(value.producer));
        int32_t ready_step = -1;
        int32_t read_slot = planned.slot;
        int32_t minus_slot = -1;
        if (auto written = writer.find(planned.slot); written != writer.end()) {
            ready_step = written->second;
        } else if (const auto fused = fused_residual(plan, graph, op, planned.loop_indices)) {
            ready_step = fused->step;
            read_slot = plan.steps[static_cast<size_t>(fused->step)].output;
            minus_slot = fused->residual_slot;
        } else {
            continue;  // never held: a linear fused with its GELU, a cache's new contents
        }
        TappableEdge edge;
        edge.op = op.name;
        edge.scope = call_path(graph, op.scope, planned.loop_indices);
        std::string inner = edge.scope.empty() ? op.name : edge.scope + "/" + op.name;
        const int k = occurrence[static_cast<size_t>(value.producer)];
        if (k > 0) inner += "#" + std::to_string(k);
        std::vector<std::string> names;
        if (auto calls = results.find(planned.value); calls != results.end()) {
            edge.block_output = true;
            for (ScopeId call : calls->second) {
                names.push_back(call_path(graph, call, planned.loop_indices));
            }
        }
        names.push_back(inner);
        for (std::string& name : names) {
            if (taken.count(name) > 0) continue;
            taken.insert(name);
            if (edge.name.empty()) {
                edge.name = std::move(name);
            } else {
                edge.aliases.push_back(std::move(name));
            }
        }
        if (edge.name.empty()) continue;  // every name already names an earlier value
        edge.value = planned.value;
        edge.loop_indices = planned.loop_indices;
        edge.symbolic_type = program::type_label(value.type);
        edge.full_type = value.type.str();
        const Slot& slot = plan.slots[static_cast<size_t>(planned.slot)];
        edge.shape = slot.shape;
        edge.dtype = std::string(program::dtype_name(slot.dtype));
        edge.step = ready_step;
        edge.slot = read_slot;
        edges.push_back(std::move(edge));
        minus_slots.push_back(minus_slot);
    }
    return edges;
}

const std::vector<std::string>& tappable_entries() {
    static const std::vector<std::string> entries = {"encode", "listen", "prefill", "step"};
    return entries;
}

std::vector<TappableEdge> list_tappable_edges(const model::WhisperBinding& binding,
                                              const std::string& entry, const TapPlanShape& shape) {
    const auto& known = tappable_entries();
    if (std::find(known.begin(), known.end(), entry) == known.end()) {
        throw TapError("no entry '" + entry + "' to tap (encode, listen, prefill or step)");
    }
    if (shape.batch < 1) throw TapError("the batch must be at least 1");
    const int64_t max_tokens = binding.values.dims.at("MaxTokens");
    if (entry == "prefill" && (shape.tokens < 1 || shape.tokens > max_tokens)) {
        throw TapError("prefill takes 1 .. " + std::to_string(max_tokens) + " tokens, not " +
                       std::to_string(shape.tokens));
    }
    WhisperPlans plans(binding);
    const ExecutionPlan& plan =
        plans.plan(entry, shape.batch, entry_dims(binding, entry, shape.batch, shape.tokens));
    return list_tappable_edges(plan, plans.graph(entry));
}

const TappableEdge* find_edge(const std::vector<TappableEdge>& edges, std::string_view name) {
    for (const TappableEdge& edge : edges) {
        if (edge.name == name) return &edge;
        for (const std::string& alias : edge.aliases) {
            if (alias == name) return &edge;
        }
    }
    return nullptr;
}

std::vector<const TappableEdge*> edges_of_value(const std::vector<TappableEdge>& edges,
                                                program::ValueId value) {
    std::vector<const TappableEdge*> found;
    for (const TappableEdge& edge : edges) {
        if (edge.value == value) found.push_back(&edge);
    }
    return found;
}

std::vector<std::string> closest_edge_names(const std::vector<TappableEdge>& edges,
                                            std::string_view name, size_t count) {
    std::vector<std::pair<size_t, size_t>> ranked;  // distance, edge
    for (size_t i = 0; i < edges.size(); ++i) {
        size_t best = edit_distance(name, edges[i].name);
        for (const std::string& alias : edges[i].aliases) {
            best = std::min(best, edit_distance(name, alias));
        }
        ranked.emplace_back(best, i);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> names;
    for (size_t i = 0; i < ranked.size() && names.size() < count; ++i) {
        names.push_back(edges[ranked[i].second].name);
    }
    return names;
}

const TappableEdge& require_edge(const std::vector<TappableEdge>& edges, std::string_view name,
                                 std::string_view entry) {
    if (const TappableEdge* edge = find_edge(edges, name)) return *edge;
    std::string message = "no edge '" + std::string(name) + "' in " + std::string(entry);
    const std::vector<std::string> closest = closest_edge_names(edges, name);
    for (size_t i = 0; i < closest.size(); ++i) {
        message += (i == 0 ? "; closest: '" : ", '") + closest[i] + "'";
    }
    throw TapError(message);
}

TapSet::TapSet(std::vector<std::string> names) {
    for (std::string& name : names) add(std::move(name));
}

void TapSet::add(std::string name) {
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) return;
    TappedValue value;
    value.name = name;
    names_.push_back(std::move(name));
    values_.push_back(std::move(value));
    generation_ = next_generation();
}

const TappedValue* TapSet::value(std::string_view name) const {
    for (const TappedValue& value : values_) {
        if (value.name == name) return &value;
    }
    return nullptr;
}

}  // namespace earshot::backend
