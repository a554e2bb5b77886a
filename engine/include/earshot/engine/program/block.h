// Block declarations: generics, members (`param`, `state`, `sub`, arrays), functions with
// signatures (`pub entry`, `pub fn`, `fn`), shape constraints, and their printing as `inspect`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "earshot/engine/program/types.h"

namespace earshot::program {

// The type of a `sub` member: a block applied to generic arguments, optionally repeated:
// `Linear<D, Inner, T>` or `[EncoderLayer<D, Heads, Inner, T>; EncoderLayers]`.
struct SubType {
    std::string block;  // short block name, e.g. "Linear"
    std::vector<GenericArg> args;
    std::optional<Dim> count;  // arrays only

    std::string instance_str() const;  // `Linear<D, Inner, T>`
    std::string str() const;           // with the array brackets when repeated
};

enum class MemberKind { param, state, sub };

struct Member {
    MemberKind kind = MemberKind::param;
    std::string name;
    Type type;    // param and state
    SubType sub;  // sub

    std::string str() const;  // `param weight: Tensor[Out, In; T]`
};

enum class Visibility { entry, pub_fn, private_fn };  // `pub entry`, `pub fn`, `fn`

struct Parameter {
    std::string name;
    Type type;
};

struct FunctionDecl {
    Visibility visibility = Visibility::pub_fn;
    std::string name;
    std::vector<Generic> generics;  // the function's own generics
    std::vector<Parameter> params;
    Type result;

    std::string signature() const;  // `forward<B: Dim>(x: Tensor[B, D; T]) -> Tensor[B, D; T]`
    std::string str() const;        // with `pub entry ` / `pub fn ` / `fn ` in front
};

// A requirement on a block's generics, checked when a configuration binds them.
struct Constraint {
    enum class Relation { equal, greater, greater_equal };
    Dim lhs;
    Relation relation = Relation::equal;
    Dim rhs;

    bool holds(const DimValues& values) const;  // throws DimError when lhs cannot be evaluated
    std::string str() const;                    // `D % Heads == 0`
};

struct BlockDecl {
    std::string module;  // `whisper`, `std.nn.linear`
    std::string name;    // `Attention`
    std::vector<Generic> generics;
    std::vector<Member> members;          // declaration order
    std::vector<FunctionDecl> functions;  // declaration order
    std::vector<Constraint> constraints;  // checked in order; earlier ones guard later ones

    std::string qualified_name() const { return module + "::" + name; }
    std::string header() const;  // `whisper::Attention<D: Dim, Heads: Dim, T: Float>`
    const FunctionDecl& function(std::string_view function_name) const;  // throws TypeError
    const Member& member(std::string_view member_name) const;            // throws TypeError
    const Generic* generic(std::string_view generic_name) const;

    // The block as `inspect` prints it: the header, then members and functions indented.
    std::string str() const;
};

}  // namespace earshot::program
