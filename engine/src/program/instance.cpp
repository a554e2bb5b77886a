// Block instances and calls: generic binding at call sites, signature checks, call scopes.
#include "earshot/engine/program/instance.h"

#include <algorithm>

#include "earshot/engine/program/syntax.h"

namespace earshot::program {

namespace {

bool is_function_generic(const FunctionDecl& f, std::string_view name, GenericKind kind) {
    return std::any_of(f.generics.begin(), f.generics.end(),
                       [&](const Generic& g) { return g.name == name && g.kind == kind; });
}

// Matches a declared parameter type against an argument's type, binding the function's own
// generics on first sight. Returns false on a mismatch.
bool unify(const FunctionDecl& f, const Type& declared, const Type& actual, Bindings& bindings) {
    if (actual.kind == Type::Kind::none) return declared.optional;
    if (actual.optional && !declared.optional) return false;
    if (declared.kind != actual.kind) return false;
    if (declared.element.is_variable() &&
        is_function_generic(f, declared.element.variable, GenericKind::element) &&
        bindings.elements.count(declared.element.variable) == 0) {
        bindings.elements.emplace(declared.element.variable, actual.element);
    }
    if (!(bindings.apply(declared.element) == actual.element)) return false;
    if (declared.kind != Type::Kind::tensor) return true;

    const auto& items = declared.shape;
    auto pack =
        std::find_if(items.begin(), items.end(), [](const ShapeItem& i) { return i.is_pack(); });
    size_t fixed = items.size() - (pack == items.end() ? 0 : 1);
    if (actual.shape.size() < fixed || (pack == items.end() && actual.shape.size() != fixed)) {
        return false;
    }
    size_t pack_length = actual.shape.size() - fixed;
    size_t a = 0;
    for (const auto& item : items) {
        if (item.is_pack()) {
            std::vector<Dim> dims;
            for (size_t k = 0; k < pack_length; ++k) dims.push_back(actual.shape[a + k].dim);
            a += pack_length;
            auto bound = bindings.packs.find(item.pack);
            if (bound == bindings.packs.end()) {
                bindings.packs.emplace(item.pack, std::move(dims));
            } else if (!(bound->second == dims)) {
                return false;
            }
            continue;
        }
        const Dim& got = actual.shape[a++].dim;
        auto name = item.dim.symbol_name();
        if (name && is_function_generic(f, *name, GenericKind::dim) &&
            bindings.dims.count(*name) == 0) {
            bindings.dims.emplace(*name, got);
            continue;
        }
        if (!(bindings.apply(item.dim) == got)) return false;
    }
    return true;
}

GenericArg default_arg(const Generic& g) {
    if (g.kind == GenericKind::element) {
        if (auto d = parse_dtype(g.default_value)) return ElementType::of(*d);
        return ElementType::var(g.default_value);
    }
    return parse_dim(g.default_value);
}

}  // namespace

std::vector<GenericArg> symbolic_args(const BlockDecl& decl) {
    std::vector<GenericArg> args;
    for (const auto& g : decl.generics) {
        if (g.kind == GenericKind::element) {
            args.emplace_back(ElementType::var(g.name));
        } else {
            args.emplace_back(Dim::symbol(g.name));
        }
    }
    return args;
}

BlockInstance::BlockInstance(const BlockDecl& decl, std::vector<GenericArg> args, std::string path)
    : decl_(&decl), args_(std::move(args)), path_(std::move(path)) {
    if (args_.size() > decl.generics.size()) {
        throw TypeError(decl.qualified_name() + " takes " + std::to_string(decl.generics.size()) +
                        " generic arguments, got " + std::to_string(args_.size()));
    }
    for (size_t i = args_.size(); i < decl.generics.size(); ++i) {
        if (decl.generics[i].default_value.empty()) {
            throw TypeError(decl.qualified_name() + ": no argument for generic " +
                            decl.generics[i].name);
        }
        args_.push_back(default_arg(decl.generics[i]));
    }
    for (size_t i = 0; i < args_.size(); ++i) {
        const Generic& g = decl.generics[i];
        bool is_element = std::holds_alternative<ElementType>(args_[i]);
        if (is_element != (g.kind == GenericKind::element)) {
            throw TypeError(decl.qualified_name() + ": generic " + g.name + " gets " +
                            generic_arg_str(args_[i]) + " of the wrong kind");
        }
        if (is_element) {
            bindings_.elements.emplace(g.name, std::get<ElementType>(args_[i]));
        } else {
            bindings_.dims.emplace(g.name, std::get<Dim>(args_[i]));
        }
    }
}

std::string BlockInstance::label() const {
    auto dot = path_.rfind('.');
    return dot == std::string::npos ? path_ : path_.substr(dot + 1);
}

std::string BlockInstance::type_str() const {
    SubType t{decl_->name, args_, std::nullopt};
    return t.instance_str();
}

std::vector<GenericArg> BlockInstance::sub_args(std::string_view name) const {
    const Member& m = decl_->member(name);
    if (m.kind != MemberKind::sub)
        throw TypeError(decl_->qualified_name() + "." + std::string(name) + " is not a sub block");
    std::vector<GenericArg> out;
    for (const auto& arg : m.sub.args) {
        if (const auto* d = std::get_if<Dim>(&arg)) {
            out.emplace_back(bindings_.apply(*d));
        } else {
            out.emplace_back(bindings_.apply(std::get<ElementType>(arg)));
        }
    }
    return out;
}

std::string BlockInstance::sub_path(std::string_view name, std::string_view index) const {
    std::string out = path_.empty() ? std::string(name) : path_ + "." + std::string(name);
    if (!index.empty()) out += "[" + std::string(index) + "]";
    return out;
}

void BlockInstance::unknown_function(std::string_view function) const {
    (void)decl_->function(function);  // throws for an undeclared name
    throw TypeError(decl_->qualified_name() + "." + std::string(function) +
                    " is declared but its block has no body for it");
}

Type BlockInstance::member_type(std::string_view name) const {
    return bindings_.apply(decl_->member(name).type);
}

ValueId BlockInstance::param(GraphBuilder& b, std::string_view name) const {
    if (decl_->member(name).kind != MemberKind::param) {
        throw TypeError(decl_->qualified_name() + "." + std::string(name) + " is not a param");
    }
    return b.param(sub_path(name), member_type(name));
}

ValueId BlockInstance::state(GraphBuilder& b, std::string_view name) const {
    if (decl_->member(name).kind != MemberKind::state) {
        throw TypeError(decl_->qualified_name() + "." + std::string(name) + " is not a state");
    }
    return b.state(sub_path(name), member_type(name));
}

Call::Call(GraphBuilder& b, const BlockInstance& self, std::string_view function,
           std::vector<ValueId> args)
    : builder_(b),
      self_(self),
      decl_(self.decl().function(function)),
      args_(std::move(args)),
      bindings_(self.bindings()) {
    const std::string where = self.decl().qualified_name() + "." + decl_.name;
    if (args_.size() != decl_.params.size()) {
        b.fail(where, "takes " + std::to_string(decl_.params.size()) + " arguments, got " +
                          std::to_string(args_.size()));
    }
    for (size_t i = 0; i < args_.size(); ++i) {
        if (args_[i] == kNoValue) continue;  // `none`, typed once the others are bound
        if (!unify(decl_, decl_.params[i].type, b.type(args_[i]), bindings_)) {
            b.fail(where, "argument " + decl_.params[i].name + " expects " +
                              bindings_.apply(decl_.params[i].type).str() + ", got " +
                              b.type(args_[i]).str());
        }
    }
    for (size_t i = 0; i < args_.size(); ++i) {
        if (args_[i] != kNoValue) continue;
        if (!decl_.params[i].type.optional) {
            b.fail(where, "argument " + decl_.params[i].name + " is not optional");
        }
        args_[i] = b.none(bindings_.apply(decl_.params[i].type));
    }

    const BlockInstance* caller = b.current_block();
    if (caller != nullptr && !(decl_.visibility == Visibility::private_fn && caller == &self)) {
        std::string label = caller == &self ? decl_.name : self.label() + "." + decl_.name;
        scope_ = b.open_call(std::move(label), self.type_str(), self.decl().qualified_name(),
                             decl_.name, args_);
    }
    b.push_block(&self);
}

Call::~Call() {
    if (!finished_) builder_.pop_block();  // unwinding after a type error
}

Dim Call::dim(std::string_view generic) const {
    auto found = bindings_.dims.find(generic);
    if (found == bindings_.dims.end()) {
        builder_.fail(self_.decl().qualified_name() + "." + decl_.name,
                      "generic " + std::string(generic) + " is not bound");
    }
    return found->second;
}

ValueId Call::finish(ValueId result) {
    Type expected = bindings_.apply(decl_.result);
    const Type& got = builder_.type(result);
    if (!(expected == got)) {
        builder_.fail(self_.decl().qualified_name() + "." + decl_.name,
                      "declared result " + decl_.result.str() + " is " + expected.str() +
                          " here, but the traced body gives " + got.str());
    }
    builder_.pop_block();
    finished_ = true;
    if (scope_) builder_.close_call(*scope_, result);
    return result;
}

Graph trace_function(const BlockInstance& block, std::string_view function) {
    const FunctionDecl& f = block.decl().function(function);
    GraphBuilder b(block.decl().qualified_name() + "." + f.name);
    Bindings bindings = block.bindings();
    for (const auto& g : f.generics) {
        switch (g.kind) {
            case GenericKind::dim:
                bindings.dims.emplace(g.name, Dim::symbol(g.name));
                break;
            case GenericKind::shape:
                bindings.packs.emplace(g.name, std::vector<Dim>{Dim::symbol(g.name)});
                break;
            case GenericKind::element:
                bindings.elements.emplace(g.name, ElementType::var(g.name));
                break;
        }
    }
    std::vector<ValueId> inputs;
    for (const auto& p : f.params) {
        inputs.push_back(b.input(p.name, bindings.apply(p.type).with_optional(false)));
    }
    b.output(block.invoke(b, function, inputs));
    return std::move(b).take();
}

}  // namespace earshot::program
