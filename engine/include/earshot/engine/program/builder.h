// GraphBuilder: records typed ops into a Graph inside named scopes. Block functions call its op
// methods; each op checks its operand types and computes its result type (the shape rules live
// here once, for every backend).
#pragma once

#include <string>
#include <vector>

#include "earshot/engine/program/graph.h"

namespace earshot::program {

class BlockInstance;

class GraphBuilder {
public:
    explicit GraphBuilder(std::string name);

    const Graph& graph() const { return graph_; }
    Graph take() &&;

    const Type& type(ValueId v) const { return graph_.type(v); }
    std::vector<Dim> dims(ValueId v) const;

    // Entry arguments and results.
    ValueId input(std::string name, Type type);
    void output(ValueId v);

    // Parameters and state read at `path` (e.g. "encoder_layers[layer].fc1.weight").
    ValueId param(std::string path, Type type);
    ValueId state(std::string path, Type type);
    ValueId none(Type optional_type);

    // ---- Named ops. Each throws TypeError, with the scope it was traced in, on bad operands.
    ValueId permute(ValueId x, std::vector<int64_t> axes);
    // Channels-last 1-D convolution: x [B, L, Cin], w [Cout, Cin, K], b [Cout]
    // -> [B, (L + 2 * padding - K) / stride + 1, Cout].
    ValueId conv1d(ValueId x, ValueId w, ValueId b, int64_t stride, int64_t padding,
                   std::string module);
    ValueId gelu_erf(ValueId x);
    ValueId add(ValueId a, ValueId b);  // b's shape equals a's or a suffix of it
    ValueId layer_norm(ValueId x, ValueId w, ValueId b, double eps);
    ValueId rms_norm(ValueId x, ValueId w, double eps);
    // x [*S, In], w [Out, In], bias [Out]? (a `none`, or kNoValue for a head without bias).
    ValueId linear(ValueId x, ValueId w, ValueId bias, std::string module);
    ValueId split_heads(ValueId x, const Dim& heads);      // [B, N, D] -> [B, Heads, N, D / Heads]
    ValueId merge_heads(ValueId x, const Dim& model_dim);  // [B, Heads, N, D / Heads] -> [B, N, D]
    // q [B, H, Q, Dh], k and v [B, H, K, Dh], mask [Q, K; bool]? -> [B, H, Q, Dh]; the scores are
    // scaled by rsqrt(scale_dim).
    ValueId attention(ValueId q, ValueId k, ValueId v, ValueId mask, const Dim& scale_dim);
    ValueId embedding(ValueId ids, ValueId table, std::string module);
    ValueId slice_rows(ValueId table, const Dim& start, const Dim& length);
    ValueId slice_rows_at(ValueId table, ValueId start_scalar, const Dim& length);
    ValueId take(ValueId x, int64_t axis, const Dim& index);
    ValueId causal_mask(const Dim& size);
    ValueId iota(const Dim& size);
    ValueId less_equal(ValueId x, ValueId scalar);
    ValueId reshape(ValueId x, std::vector<Dim> dims);
    ValueId write_span(ValueId state, ValueId value, int64_t axis, const Dim& start);
    ValueId write_at(ValueId state, ValueId value, int64_t axis, ValueId pos_scalar);

    // ---- Scopes. Calls and loops nest; ops are recorded in the innermost open scope.
    ScopeId current_scope() const { return scopes_.back(); }
    ScopeId open_call(std::string label, std::string sublabel, std::string block,
                      std::string function, std::vector<ValueId> arguments);
    void close_call(ScopeId scope, ValueId result);
    ScopeId open_loop(std::string index, std::string array, Dim count,
                      std::vector<ValueId> carried_in);
    void close_loop(ScopeId scope, std::vector<ValueId> carried_out);

    // The block instances whose functions are being traced, innermost last.
    void push_block(const BlockInstance* block) { blocks_.push_back(block); }
    void pop_block() { blocks_.pop_back(); }
    const BlockInstance* current_block() const;
    // The open call and loop labels, outermost first, for error messages.
    std::string context() const;

    [[noreturn]] void fail(std::string_view op, const std::string& message) const;

private:
    ValueId emit(OpKind kind, std::string name, std::string module, std::vector<ValueId> inputs,
                 Type result, std::map<std::string, Attribute, std::less<>> attrs = {});
    const Type& tensor_operand(std::string_view op, std::string_view role, ValueId v) const;

    Graph graph_;
    std::vector<ScopeId> scopes_{kRootScope};
    std::vector<const BlockInstance*> blocks_;
};

}  // namespace earshot::program
