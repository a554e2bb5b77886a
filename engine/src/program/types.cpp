// Types of the block program: construction, substitution of generics and printing.
#include "earshot/engine/program/types.h"

#include <array>
#include <utility>

namespace earshot::program {

namespace {

constexpr std::array<std::pair<DType, std::string_view>, 5> kDTypeNames{{
    {DType::f32, "f32"},
    {DType::f16, "f16"},
    {DType::bf16, "bf16"},
    {DType::i32, "i32"},
    {DType::boolean, "bool"},
}};

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += separator;
        out += parts[i];
    }
    return out;
}

std::vector<std::string> shape_strings(const std::vector<ShapeItem>& shape) {
    std::vector<std::string> parts;
    parts.reserve(shape.size());
    for (const auto& item : shape)
        parts.push_back(item.is_pack() ? "*" + item.pack : item.dim.str());
    return parts;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
    for (const auto& [d, name] : kDTypeNames) {
        if (d == dtype) return name;
    }
    return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
    for (const auto& [d, name] : kDTypeNames) {
        if (name == text) return d;
    }
    return std::nullopt;
}

bool is_float(DType dtype) {
    return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16;
}

std::string ElementType::str() const {
    return is_variable() ? variable : std::string(dtype_name(dtype));
}

Type Type::tensor(std::vector<Dim> dims, ElementType element) {
    Type t;
    t.kind = Kind::tensor;
    for (auto& d : dims) t.shape.push_back(ShapeItem::of(std::move(d)));
    t.element = std::move(element);
    return t;
}

bool Type::has_pack() const {
    for (const auto& item : shape) {
        if (item.is_pack()) return true;
    }
    return false;
}

std::vector<Dim> Type::dims() const {
    std::vector<Dim> out;
    out.reserve(shape.size());
    for (const auto& item : shape) {
        if (item.is_pack()) throw TypeError("shape pack *" + item.pack + " in " + str());
        out.push_back(item.dim);
    }
    return out;
}

Type Type::with_optional(bool is_optional) const {
    Type t = *this;
    t.optional = is_optional;
    return t;
}

std::string Type::str() const {
    std::string out;
    switch (kind) {
        case Kind::tensor:
            out = "Tensor[" + join(shape_strings(shape), ", ") + "; " + element.str() + "]";
            break;
        case Kind::scalar:
            out = element.str();
            break;
        case Kind::none:
            return "none";
    }
    return optional ? out + "?" : out;
}

ElementType Bindings::apply(const ElementType& e) const {
    if (!e.is_variable()) return e;
    auto found = elements.find(e.variable);
    return found == elements.end() ? e : found->second;
}

Type Bindings::apply(const Type& t) const {
    Type out = t;
    out.element = apply(t.element);
    out.shape.clear();
    for (const auto& item : t.shape) {
        if (!item.is_pack()) {
            out.shape.push_back(ShapeItem::of(apply(item.dim)));
            continue;
        }
        auto found = packs.find(item.pack);
        if (found == packs.end()) {
            out.shape.push_back(item);  // unbound packs stay symbolic
            continue;
        }
        for (const auto& d : found->second) out.shape.push_back(ShapeItem::of(apply(d)));
    }
    return out;
}

std::string Generic::str() const {
    std::string out;
    switch (kind) {
        case GenericKind::dim:
            out = name + ": Dim";
            break;
        case GenericKind::shape:
            out = "*" + name + ": Shape";
            break;
        case GenericKind::element:
            out = name + ": Float";
            break;
    }
    if (!default_value.empty()) out += " = " + default_value;
    return out;
}

std::string generics_str(const std::vector<Generic>& generics) {
    if (generics.empty()) return {};
    std::vector<std::string> parts;
    for (const auto& g : generics) parts.push_back(g.str());
    return "<" + join(parts, ", ") + ">";
}

std::string generic_arg_str(const GenericArg& arg) {
    if (const auto* d = std::get_if<Dim>(&arg)) return d->str();
    return std::get<ElementType>(arg).str();
}

DType ConcreteBinding::element(const ElementType& e) const {
    if (!e.is_variable()) return e.dtype;
    auto found = elements.find(e.variable);
    if (found == elements.end()) throw TypeError("no dtype bound for " + e.variable);
    return found->second;
}

std::string shape_str(std::span<const int64_t> shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(shape[i]);
    }
    return out + "]";
}

std::string type_label(const Type& type) {
    if (type.kind == Type::Kind::tensor && !type.optional) {
        return type.element.str() + "[" + join(shape_strings(type.shape), ", ") + "]";
    }
    return type.str();
}

std::string type_label(const Type& type, const ConcreteBinding& binding) {
    if (type.kind == Type::Kind::none) return "none";
    std::string element(dtype_name(binding.element(type.element)));
    if (type.kind == Type::Kind::scalar) return type.optional ? element + "?" : element;
    std::vector<std::string> dims;
    for (const auto& item : type.shape) {
        dims.push_back(item.is_pack() ? "*" + item.pack : std::to_string(binding.dim(item.dim)));
    }
    if (!type.optional) return element + "[" + join(dims, ", ") + "]";
    return "Tensor[" + join(dims, ", ") + "; " + element + "]?";
}

}  // namespace earshot::program
