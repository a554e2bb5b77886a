// ExecutionPlan: a traced graph bound to concrete dims, with its loops unrolled, every parameter
// and state path resolved (`encoder_layers[layer].fc1.weight` -> `encoder_layers.3.mlp...`), and
// every intermediate value given an offset in one reusable arena. Backends execute its steps.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/program/graph.h"

namespace earshot::backend {

// Where a step's operand lives.
enum class SlotKind {
    none,   // the `none` literal
    input,  // entry argument `index`
    param,  // the parameter at `path` (absent optional params are none)
    state,  // the state tensor at `path`, read and written in place
    arena,  // intermediate: bytes [offset, offset + size) of the arena
};

struct Slot {
    SlotKind kind = SlotKind::none;
    int64_t index = -1;  // input
    std::string path;    // param, state
    int64_t offset_bytes = 0;
    int64_t size_bytes = 0;
    std::vector<int64_t> shape;  // concrete
    program::DType dtype = program::DType::f32;
    bool scalar = false;  // an i32 scalar input such as `pos`
};

struct PlanStep {
    program::OpKind kind = program::OpKind::input;
    std::vector<int32_t> inputs;  // slot ids
    int32_t output = -1;          // slot id
    // Integer attributes evaluated under the binding: stride, padding, axis, start, length,
    // index, size, heads, model_dim, scale_dim; "axes" for permute.
    std::map<std::string, int64_t, std::less<>> ints;
    std::vector<int64_t> axes;
    double eps = 0.0;
    std::string scope;  // the call scope's label path, for profiling and errors
    // A view: the output is the input's bytes under another shape (a reshape; splitting or
    // merging heads of a single position). It shares the input's arena offset, so backends skip
    // it: nothing is computed or copied.
    bool alias = false;
};

// One traced value as the plan holds it (taps name them, see tap.h): the value in the traced
// graph, the iteration of every loop around it (outermost first, as unrolled) and its slot.
// A repeated pure op's value names the earlier result's slot; a linear's result that a fused
// epilogue consumed names a slot no step writes.
struct PlannedValue {
    program::ValueId value = program::kNoValue;
    std::vector<std::pair<std::string, int64_t>> loop_indices;
    int32_t slot = -1;
};

struct ExecutionPlan {
    std::string entry;
    std::vector<Slot> slots;
    std::vector<PlanStep> steps;       // in order; only steps that compute something (no reads)
    std::vector<int32_t> outputs;      // slot ids of the entry's results
    int64_t arena_bytes = 0;           // the arena every arena slot fits in, with reuse
    int64_t naive_bytes = 0;           // what the intermediates would take without reuse
    std::vector<PlannedValue> values;  // every computed value, in plan (unrolled) order
};

// The concrete shape of a type under a binding (packs are an error).
std::vector<int64_t> concrete_shape(const program::Type& type,
                                    const program::ConcreteBinding& binding);

// A linear step's epilogues (plan rewrites, see build_plan): ints[kGeluEpilogue] = 1 applies
// gelu_erf to its result; ints[kResidualInput] = i adds input i (a residual of the same shape).
inline constexpr const char* kGeluEpilogue = "epilogue_gelu";
inline constexpr const char* kResidualInput = "epilogue_residual_input";

// A linear step's bias input (x, w, b?, residual?), or nullopt when it has none.
inline std::optional<size_t> linear_bias_input(const PlanStep& step) {
    auto residual = step.ints.find(kResidualInput);
    const size_t inputs = step.inputs.size() - (residual != step.ints.end() ? 1 : 0);
    return inputs > 2 ? std::optional<size_t>(2) : std::nullopt;
}
inline std::optional<size_t> linear_residual_input(const PlanStep& step) {
    auto residual = step.ints.find(kResidualInput);
    return residual != step.ints.end()
               ? std::optional<size_t>(static_cast<size_t>(residual->second))
               : std::nullopt;
}
inline bool linear_gelu_epilogue(const PlanStep& step) {
    return step.ints.count(kGeluEpilogue) > 0;
}

// Unrolls loops (the loop index takes 0 .. count - 1 and is substituted into paths as `.i`),
// evaluates shapes and attributes, and assigns arena offsets by liveness (64-byte aligned).
// Two rewrites keep the program's meaning and drop work, without changing the traced graph the
// inspector shows: a pure op that repeats an earlier one exactly (the same iota, causal mask, mask
// reshape or `iota <= pos` in every decoder layer) reuses its result, and views (see
// PlanStep::alias) share their input's bytes.
ExecutionPlan build_plan(const program::Graph& graph, const program::ConcreteBinding& binding);

}  // namespace earshot::backend
