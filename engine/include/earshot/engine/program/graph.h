// The traced graph of one entry or block function: typed values, named ops in program order and
// the scopes (calls and loops) they were traced in. Backends plan and execute this graph.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "earshot/engine/program/types.h"

namespace earshot::program {

using ValueId = int32_t;
using OpId = int32_t;
using ScopeId = int32_t;
inline constexpr ValueId kNoValue = -1;
inline constexpr ScopeId kRootScope = 0;

// The named ops a backend implements. Shape rules live in ops.cpp, once for every backend.
enum class OpKind {
    input,        // an entry argument
    param,        // a parameter tensor, attr "path"
    state,        // the current contents of a state tensor, attr "path"
    none,         // the `none` literal of an optional argument
    permute,      // attr "axes"
    conv1d,       // channels-last: x [B, L, Cin], w [Cout, Cin, K], b [Cout]; attrs stride, padding
    gelu_erf,     // 0.5 x (1 + erf(x / sqrt 2))
    add,          // a + b, b's shape a suffix of a's
    layer_norm,   // x [*S, D], w [D], b [D]; attr eps
    rms_norm,     // x [*S, H], w [H]; attr eps
    linear,       // x [*S, In], w [Out, In], b [Out]?
    split_heads,  // [B, N, D] -> [B, Heads, N, D / Heads]; attr heads
    merge_heads,  // [B, Heads, N, D / Heads] -> [B, N, D]; attr model_dim
    attention,    // softmax(q k^T * rsqrt(attr scale_dim) + mask) v; mask [Q, K; bool]?
    embedding,    // ids [*S; i32], table [V, H] -> [*S, H]
    slice_rows,   // table [N, D] rows start .. start + length; attr length, start or input pos
    take,         // x [B, S, D] at attr index on axis 1 -> [B, D]
    causal_mask,  // [S, S; bool], true where key <= query
    iota,         // [N; i32] 0 .. N - 1
    less_equal,   // tensor <= scalar -> bool
    reshape,      // attr dims
    write_span,   // state, value, attr axis and start -> the state after writing
    write_at,     // state, value, pos scalar, attr axis -> the state after writing
};

std::string_view op_kind_name(OpKind kind);
// What the op computes, in one line ("softmax(q k^T / sqrt(D / Heads) + mask) v, ..."); "" for
// inputs, params, states and none.
std::string_view op_description(OpKind kind);

using Attribute = std::variant<int64_t, double, Dim, std::vector<int64_t>, std::string>;

struct Op {
    OpKind kind = OpKind::input;
    std::string name;    // as drawn: "conv1d", "+", "layer_norm", "none", "mel"
    std::string module;  // where the op comes from: "whisper", "std.nn.activations", "" builtin
    std::vector<ValueId> inputs;
    ValueId output = kNoValue;
    ScopeId scope = kRootScope;
    std::map<std::string, Attribute, std::less<>> attrs;

    const Attribute& attr(std::string_view key) const;  // throws TypeError when absent
};

struct Value {
    Type type;
    OpId producer = -1;
};

enum class ScopeKind { root, call, loop };

// A call of a block function (drawn as a call node or a group) or a loop over a block array.
struct Scope {
    ScopeKind kind = ScopeKind::root;
    std::string label;     // "encoder_layers[layer].forward", "for layer in encoder_layers"
    std::string sublabel;  // calls: the callee's type, "LayerNorm<D, T>"
    ScopeId parent = -1;
    int call_depth = 0;  // calls on the way from the root, this one included
    // Calls.
    std::string block;     // "whisper::Attention"
    std::string function;  // "forward"
    std::vector<ValueId> arguments;
    ValueId result = kNoValue;
    // Loops: `for index in array`, `count` times; carried values are replaced each iteration.
    std::string index;  // "layer"
    std::string array;  // "encoder_layers"
    Dim count;
    std::vector<ValueId> carried_in;
    std::vector<ValueId> carried_out;
};

struct Graph {
    std::string name;  // "encode", "whisper::Attention.forward"
    std::vector<Value> values;
    std::vector<Op> ops;  // program order: every op's inputs are produced earlier
    std::vector<Scope> scopes{Scope{}};
    std::vector<ValueId> inputs;
    std::vector<std::string> input_names;
    std::vector<ValueId> outputs;

    const Type& type(ValueId v) const { return values.at(static_cast<size_t>(v)).type; }
    const Op& producer(ValueId v) const;
    // True when `scope` is `ancestor` or nested inside it.
    bool within(ScopeId scope, ScopeId ancestor) const;
};

}  // namespace earshot::program
