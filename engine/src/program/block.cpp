// Block declarations: lookup and printing in the `inspect` layout.
#include "earshot/engine/program/block.h"

namespace earshot::program {

std::string SubType::instance_str() const {
    std::string out = block + "<";
    for (size_t i = 0; i < args.size(); ++i) {
        if (i > 0) out += ", ";
        out += generic_arg_str(args[i]);
    }
    return out + ">";
}

std::string SubType::str() const {
    if (!count) return instance_str();
    return "[" + instance_str() + "; " + count->str() + "]";
}

std::string Member::str() const {
    switch (kind) {
        case MemberKind::param:
            return "param " + name + ": " + type.str();
        case MemberKind::state:
            return "state " + name + ": " + type.str();
        case MemberKind::sub:
            return "sub " + name + ": " + sub.str();
    }
    return {};
}

std::string FunctionDecl::signature() const {
    std::string out = name + generics_str(generics) + "(";
    for (size_t i = 0; i < params.size(); ++i) {
        if (i > 0) out += ", ";
        out += params[i].name + ": " + params[i].type.str();
    }
    return out + ") -> " + result.str();
}

std::string FunctionDecl::str() const {
    switch (visibility) {
        case Visibility::entry:
            return "pub entry " + signature();
        case Visibility::pub_fn:
            return "pub fn " + signature();
        case Visibility::private_fn:
            return "fn " + signature();
    }
    return {};
}

bool Constraint::holds(const DimValues& values) const {
    int64_t left = lhs.evaluate(values);
    int64_t right = rhs.evaluate(values);
    switch (relation) {
        case Relation::equal:
            return left == right;
        case Relation::greater:
            return left > right;
        case Relation::greater_equal:
            return left >= right;
    }
    return false;
}

std::string Constraint::str() const {
    std::string op = relation == Relation::equal     ? " == "
                     : relation == Relation::greater ? " > "
                                                     : " >= ";
    return lhs.str() + op + rhs.str();
}

std::string BlockDecl::header() const { return qualified_name() + generics_str(generics); }

const FunctionDecl& BlockDecl::function(std::string_view function_name) const {
    for (const auto& f : functions) {
        if (f.name == function_name) return f;
    }
    throw TypeError(qualified_name() + " has no function " + std::string(function_name));
}

const Member& BlockDecl::member(std::string_view member_name) const {
    for (const auto& m : members) {
        if (m.name == member_name) return m;
    }
    throw TypeError(qualified_name() + " has no member " + std::string(member_name));
}

const Generic* BlockDecl::generic(std::string_view generic_name) const {
    for (const auto& g : generics) {
        if (g.name == generic_name) return &g;
    }
    return nullptr;
}

std::string BlockDecl::str() const {
    std::string out = header();
    for (const auto& m : members) out += "\n  " + m.str();
    for (const auto& f : functions) out += "\n  " + f.str();
    return out;
}

}  // namespace earshot::program
