// GraphBuilder: values, scopes and the graph's bookkeeping (the op shape rules are in ops.cpp).
#include "earshot/engine/program/builder.h"

#include <cassert>
#include <utility>

namespace earshot::program {

const Attribute& Op::attr(std::string_view key) const {
    auto found = attrs.find(key);
    if (found == attrs.end()) {
        throw TypeError("op " + name + " has no attribute " + std::string(key));
    }
    return found->second;
}

const Op& Graph::producer(ValueId v) const {
    return ops.at(static_cast<size_t>(values.at(static_cast<size_t>(v)).producer));
}

bool Graph::within(ScopeId scope, ScopeId ancestor) const {
    for (ScopeId s = scope; s >= 0; s = scopes.at(static_cast<size_t>(s)).parent) {
        if (s == ancestor) return true;
    }
    return false;
}

GraphBuilder::GraphBuilder(std::string name) { graph_.name = std::move(name); }

Graph GraphBuilder::take() && { return std::move(graph_); }

std::vector<Dim> GraphBuilder::dims(ValueId v) const { return type(v).dims(); }

ValueId GraphBuilder::emit(OpKind kind, std::string name, std::string module,
                           std::vector<ValueId> inputs, Type result,
                           std::map<std::string, Attribute, std::less<>> attrs) {
    for (ValueId in : inputs) {
        assert(in >= 0 && static_cast<size_t>(in) < graph_.values.size());
        (void)in;
    }
    auto op_id = static_cast<OpId>(graph_.ops.size());
    auto value_id = static_cast<ValueId>(graph_.values.size());
    graph_.values.push_back(Value{std::move(result), op_id});
    graph_.ops.push_back(Op{kind, std::move(name), std::move(module), std::move(inputs), value_id,
                            current_scope(), std::move(attrs)});
    return value_id;
}

ValueId GraphBuilder::input(std::string name, Type type) {
    ValueId v = emit(OpKind::input, name, "", {}, std::move(type));
    graph_.inputs.push_back(v);
    graph_.input_names.push_back(std::move(name));
    return v;
}

void GraphBuilder::output(ValueId v) { graph_.outputs.push_back(v); }

ValueId GraphBuilder::param(std::string path, Type type) {
    std::string label = path;
    return emit(OpKind::param, std::move(label), "", {}, std::move(type),
                {{"path", std::move(path)}});
}

ValueId GraphBuilder::state(std::string path, Type type) {
    std::string label = path;
    return emit(OpKind::state, std::move(label), "", {}, std::move(type),
                {{"path", std::move(path)}});
}

ValueId GraphBuilder::none(Type optional_type) {
    optional_type.optional = true;
    return emit(OpKind::none, "none", "", {}, std::move(optional_type));
}

ScopeId GraphBuilder::open_call(std::string label, std::string sublabel, std::string block,
                                std::string function, std::vector<ValueId> arguments) {
    Scope scope;
    scope.kind = ScopeKind::call;
    scope.label = std::move(label);
    scope.sublabel = std::move(sublabel);
    scope.parent = current_scope();
    scope.call_depth = graph_.scopes.at(static_cast<size_t>(scope.parent)).call_depth + 1;
    scope.block = std::move(block);
    scope.function = std::move(function);
    scope.arguments = std::move(arguments);
    auto id = static_cast<ScopeId>(graph_.scopes.size());
    graph_.scopes.push_back(std::move(scope));
    scopes_.push_back(id);
    return id;
}

void GraphBuilder::close_call(ScopeId scope, ValueId result) {
    assert(scopes_.back() == scope);
    graph_.scopes.at(static_cast<size_t>(scope)).result = result;
    scopes_.pop_back();
}

ScopeId GraphBuilder::open_loop(std::string index, std::string array, Dim count,
                                std::vector<ValueId> carried_in) {
    Scope scope;
    scope.kind = ScopeKind::loop;
    scope.label = "for " + index + " in " + array;
    scope.parent = current_scope();
    scope.call_depth = graph_.scopes.at(static_cast<size_t>(scope.parent)).call_depth;
    scope.index = std::move(index);
    scope.array = std::move(array);
    scope.count = std::move(count);
    scope.carried_in = std::move(carried_in);
    auto id = static_cast<ScopeId>(graph_.scopes.size());
    graph_.scopes.push_back(std::move(scope));
    scopes_.push_back(id);
    return id;
}

void GraphBuilder::close_loop(ScopeId scope, std::vector<ValueId> carried_out) {
    assert(scopes_.back() == scope);
    Scope& loop = graph_.scopes.at(static_cast<size_t>(scope));
    if (carried_out.size() != loop.carried_in.size()) {
        fail("loop", "carries " + std::to_string(loop.carried_in.size()) + " values in but " +
                         std::to_string(carried_out.size()) + " out");
    }
    for (size_t i = 0; i < carried_out.size(); ++i) {
        if (!(type(carried_out[i]) == type(loop.carried_in[i]))) {
            fail("loop", "value " + std::to_string(i) + " enters as " +
                             type(loop.carried_in[i]).str() + " but leaves as " +
                             type(carried_out[i]).str());
        }
    }
    loop.carried_out = std::move(carried_out);
    scopes_.pop_back();
}

const BlockInstance* GraphBuilder::current_block() const {
    return blocks_.empty() ? nullptr : blocks_.back();
}

std::string GraphBuilder::context() const {
    std::string out;
    for (ScopeId id : scopes_) {
        const Scope& s = graph_.scopes.at(static_cast<size_t>(id));
        if (s.kind == ScopeKind::root) continue;
        if (!out.empty()) out += " > ";
        out += s.label;
    }
    return out.empty() ? graph_.name : graph_.name + " > " + out;
}

void GraphBuilder::fail(std::string_view op, const std::string& message) const {
    throw TypeError(std::string(op) + ": " + message + " (in " + context() + ")");
}

}  // namespace earshot::program
