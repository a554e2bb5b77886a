// BlockInstance: a block declaration applied to generic arguments at a path in the model
// (`encoder_layers[layer].self_attn`), and Call: one traced, type-checked call of its functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "earshot/engine/program/block.h"
#include "earshot/engine/program/builder.h"

namespace earshot::program {

class BlockInstance {
public:
    // `args` follow the declaration's generics; missing trailing ones take their defaults.
    BlockInstance(const BlockDecl& decl, std::vector<GenericArg> args, std::string path);
    virtual ~BlockInstance() = default;
    BlockInstance(const BlockInstance&) = delete;
    BlockInstance& operator=(const BlockInstance&) = delete;

    const BlockDecl& decl() const { return *decl_; }
    const std::vector<GenericArg>& args() const { return args_; }
    const Bindings& bindings() const { return bindings_; }
    const std::string& path() const { return path_; }  // "" for the root
    // How calls on this instance are labelled: the last path segment ("self_attn").
    std::string label() const;
    // The instance's type in its parent's terms: `Attention<D, Heads, T>`.
    std::string type_str() const;

    // The generic arguments and path for the `sub` member `name`; arrays get `[index]`.
    std::vector<GenericArg> sub_args(std::string_view name) const;
    std::string sub_path(std::string_view name, std::string_view index = {}) const;

    // A member's type with this instance's generics substituted.
    Type member_type(std::string_view name) const;
    ValueId param(GraphBuilder& b, std::string_view name) const;
    ValueId state(GraphBuilder& b, std::string_view name) const;

    // Traces `function` by name on the given arguments (kNoValue for `none`), for tracing any
    // function generically: type checks, inspection tools, tests.
    virtual ValueId invoke(GraphBuilder& b, std::string_view function,
                           const std::vector<ValueId>& args) const = 0;

protected:
    // What invoke() throws for a name it has no body for: undeclared, or declared without one.
    [[noreturn]] void unknown_function(std::string_view function) const;

private:
    const BlockDecl* decl_;
    std::vector<GenericArg> args_;
    std::string path_;
    Bindings bindings_;
};

// One call of a block function while tracing. On construction it checks the arguments against
// the declared parameter types (binding the function's generics from them, turning kNoValue into
// a typed `none`) and opens the call's scope; finish() checks the result against the declared
// result type and closes it. Calls on another instance open a scope labelled
// `<member>.<function>`; calls on the same instance are labelled `<function>`; private `fn`s
// are inlined into the caller's scope (still type-checked).
class Call {
public:
    Call(GraphBuilder& b, const BlockInstance& self, std::string_view function,
         std::vector<ValueId> args);
    ~Call();
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    ValueId arg(size_t i) const { return args_.at(i); }
    // A dim generic of the function or the block, bound in the caller's terms.
    Dim dim(std::string_view generic) const;
    const Bindings& bindings() const { return bindings_; }
    ValueId finish(ValueId result);

private:
    GraphBuilder& builder_;
    const BlockInstance& self_;
    const FunctionDecl& decl_;
    std::vector<ValueId> args_;
    Bindings bindings_;
    std::optional<ScopeId> scope_;
    bool finished_ = false;
};

// Traces `function` of `block` as the root of a new graph: its parameters become inputs (the
// function's dim generics stay symbols of their own names), its result the output.
Graph trace_function(const BlockInstance& block, std::string_view function);

// Identity arguments for a declaration: every generic applied to a symbol of its own name.
std::vector<GenericArg> symbolic_args(const BlockDecl& decl);

}  // namespace earshot::program
