// Taps: the values an entry's plan computes between its input and its output, named as the
// Inspector's traced graph draws them, copied out of a backend's run on request. A block's
// output is named by its call path with loop indices (`encoder_layers[7].forward`,
// `decoder_layers[3].encoder_attn.attend`); an op inside a block by that path, a slash and the
// op as drawn (`encoder_layers[7].forward/+#1`: the second `+` of that call).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/plan.h"
#include "earshot/engine/program/graph.h"

namespace earshot::model {
struct WhisperBinding;
}

namespace earshot::backend {

// A tap that cannot be made: an unknown entry, an edge name the entry does not have (the message
// names the closest ones), a shape out of range.
class TapError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// One value of a plan that a tap can copy.
struct TappableEdge {
    std::string name;                  // "encoder_layers[7].forward", "conv1d#1", ...
    std::vector<std::string> aliases;  // other names of the same value: a call whose result is
                                       // its callee's (`self_attn.forward` and `.attend`)
    std::string op;                    // the producing op as drawn: "layer_norm", "+", "attention"
    std::string scope;                 // the call path it was computed in ("" for the entry)
    bool block_output = false;         // the result of a call (a block's output)
    // Where the Inspector draws it: the value in the entry's traced graph (ViewEdge::value), and
    // the iteration of every loop around it ({"layer", 7}; outermost first).
    program::ValueId value = program::kNoValue;
    std::vector<std::pair<std::string, int64_t>> loop_indices;
    std::string
        symbolic_type;      // as the graph's edge label shows it: "T[B, 1 + (-1 + Frames) / 2, D]"
    std::string full_type;  // the type in full: "Tensor[B, 1 + (-1 + Frames) / 2, D; T]"
    std::vector<int64_t> shape;  // concrete, under the plan's binding
    std::string dtype;           // as the plan stores it: "f32", "i32", "bool"
    // Where a backend finds it: the plan step after which the value is complete, and its slot.
    int32_t step = -1;
    int32_t slot = -1;

    std::string shape_str() const;  // "[1, 1500, 384]"
};

// The tappable values of `plan`, traced from `graph` (the graph the plan was built from), in
// plan order. Values a backend never holds are left out: the result of a linear fused with its
// GELU or residual add (the fused step's output is listed instead), parameters, inputs, and the
// decoder caches a write fills (their new rows are listed as the keys and values written).
std::vector<TappableEdge> list_tappable_edges(const ExecutionPlan& plan,
                                              const program::Graph& graph);

// The shapes an entry is planned for when its tappable edges are listed.
struct TapPlanShape {
    int64_t batch = 1;   // Batch (listen, prefill, step) and encode's B
    int64_t tokens = 4;  // prefill's S (decode's S)
};

// The entries that can be tapped: "encode", "listen", "prefill", "step".
const std::vector<std::string>& tappable_entries();

// The tappable values of a Whisper entry under `binding`. Throws TapError for an unknown entry
// or a shape out of range (tokens outside 1 .. MaxTokens).
std::vector<TappableEdge> list_tappable_edges(const model::WhisperBinding& binding,
                                              const std::string& entry,
                                              const TapPlanShape& shape = {});

// The edge named `name` (its name or an alias), or null.
const TappableEdge* find_edge(const std::vector<TappableEdge>& edges, std::string_view name);

// The edges that carry traced value `value` (ViewEdge::value of a clicked graph edge): one per
// iteration of the loops around it (`encoder_layers[0].forward`, `[1]`, ...), in plan order;
// empty when the backend never holds that value (a linear fused with its epilogue).
std::vector<const TappableEdge*> edges_of_value(const std::vector<TappableEdge>& edges,
                                                program::ValueId value);

// Up to `count` edge names closest to `name` by edit distance (ties in plan order).
std::vector<std::string> closest_edge_names(const std::vector<TappableEdge>& edges,
                                            std::string_view name, size_t count = 3);

// find_edge, or TapError: "no edge 'X' in step; closest: 'A', 'B', 'C'".
const TappableEdge& require_edge(const std::vector<TappableEdge>& edges, std::string_view name,
                                 std::string_view entry);

// One tapped value as the last run that computed it left it.
struct TappedValue {
    std::string name;        // as requested
    bool filled = false;     // false until a run of an entry that has the edge
    std::string entry;       // the plan's entry: "whisper.step"
    int32_t position = -1;   // step: the `pos` it ran at; -1 for the other entries
    std::string dtype;       // as the plan stores it ("f32", "i32", "bool"); `tensor` holds f32
    HostTensor tensor;       // the value, its concrete shape, converted to f32
    uint64_t refreshes = 0;  // how many runs have written it
};

// A set of requested tap names and their latest values. Attach it to a backend (set_taps) and
// every run of an entry whose plan has one of the names copies that value after the step that
// writes it; names an entry does not have are left as they were. Not thread-safe: the thread
// that runs the backend owns it while it is attached (TapChannel hands values across threads).
class TapSet {
public:
    TapSet() = default;
    explicit TapSet(std::vector<std::string> names);

    void add(std::string name);  // a name already in the set is not added again
    const std::vector<std::string>& names() const { return names_; }
    bool empty() const { return names_.empty(); }

    // In the order the names were added.
    const std::vector<TappedValue>& values() const { return values_; }
    const TappedValue* value(std::string_view name) const;             // null when not requested
    TappedValue& value_at(size_t index) { return values_.at(index); }  // backends fill these

    // Changes whenever the requested names change (backends re-resolve their plans then).
    uint64_t generation() const { return generation_; }

private:
    std::vector<std::string> names_;
    std::vector<TappedValue> values_;
    uint64_t generation_ = 0;
};

}  // namespace earshot::backend
