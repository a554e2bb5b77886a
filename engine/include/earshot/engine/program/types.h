// The program's types: element types, tensor types `Tensor[B, S, D; T]` with shape packs (`*S`)
// and optional types (`?`), generic parameters with kinds and defaults, and their printing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "earshot/engine/program/dim.h"

namespace earshot::program {

// Raised when the program does not type-check: a traced value or a declaration disagrees.
class TypeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class DType { f32, f16, bf16, i32, boolean };

std::string_view dtype_name(DType dtype);            // "f32", "f16", "bf16", "i32", "bool"
std::optional<DType> parse_dtype(std::string_view);  // inverse of dtype_name
bool is_float(DType dtype);

// A concrete dtype or a type variable of kind Float (`T`).
struct ElementType {
    std::string variable;  // non-empty: a type variable
    DType dtype = DType::f32;

    static ElementType of(DType d) { return ElementType{{}, d}; }
    static ElementType var(std::string name) { return ElementType{std::move(name), DType::f32}; }
    bool is_variable() const { return !variable.empty(); }
    std::string str() const;
    friend bool operator==(const ElementType&, const ElementType&) = default;
};

// One entry of a tensor shape: a dimension or a shape pack `*S`.
struct ShapeItem {
    Dim dim;
    std::string pack;  // non-empty: the name of a Shape generic

    static ShapeItem of(Dim d) { return ShapeItem{std::move(d), {}}; }
    static ShapeItem pack_of(std::string name) { return ShapeItem{Dim(), std::move(name)}; }
    bool is_pack() const { return !pack.empty(); }
    friend bool operator==(const ShapeItem&, const ShapeItem&) = default;
};

// A value's type: a tensor, a scalar (`i32`) or the type of the `none` literal, possibly optional.
struct Type {
    enum class Kind { tensor, scalar, none };
    Kind kind = Kind::tensor;
    std::vector<ShapeItem> shape;  // tensors only
    ElementType element;           // tensors and scalars
    bool optional = false;         // `?`

    static Type tensor(std::vector<Dim> dims, ElementType element);
    static Type scalar(ElementType element) { return Type{Kind::scalar, {}, std::move(element)}; }
    static Type none_type() { return Type{Kind::none, {}, {}, true}; }

    bool is_tensor() const { return kind == Kind::tensor; }
    bool has_pack() const;
    // The dims of a tensor without packs; throws TypeError on a pack.
    std::vector<Dim> dims() const;
    size_t rank() const { return shape.size(); }
    Type with_optional(bool is_optional) const;

    // `Tensor[B, S, D; T]`, `Tensor[*S, H; T]?`, `i32`, `none`.
    std::string str() const;
    friend bool operator==(const Type&, const Type&) = default;
};

// Values for generics: dims (`Frames` -> 3000 or `1 + (-1 + Frames) / 2`), shape packs (`*S` ->
// [B, N]) and element types (`T` -> f16).
struct Bindings {
    DimSubstitution dims;
    std::map<std::string, std::vector<Dim>, std::less<>> packs;
    std::map<std::string, ElementType, std::less<>> elements;

    Dim apply(const Dim& d) const { return d.substitute(dims); }
    ElementType apply(const ElementType& e) const;
    Type apply(const Type& t) const;  // expands packs; throws TypeError on an unbound pack
};

enum class GenericKind { dim, shape, element };  // `N: Dim`, `*S: Shape`, `T: Float`

// A generic parameter with its kind and optional default, e.g. `T: Float = bf16`.
struct Generic {
    std::string name;
    GenericKind kind = GenericKind::dim;
    std::string default_value;  // as written; empty when none

    std::string str() const;
};

std::string generics_str(const std::vector<Generic>& generics);  // `<B: Dim, S: Dim>` or ``

// A generic argument at a use site: a dim or an element type (`Linear<D, Inner, T>`).
using GenericArg = std::variant<Dim, ElementType>;
std::string generic_arg_str(const GenericArg& arg);

// Concrete values of every generic of a program root: what a checkpoint binds, plus run-time
// dims such as Batch.
struct ConcreteBinding {
    DimValues dims;
    std::map<std::string, DType, std::less<>> elements;

    int64_t dim(const Dim& d) const { return d.evaluate(dims); }
    DType element(const ElementType& e) const;  // throws TypeError on an unbound variable
};

// A concrete shape as printed in messages: "[1, 80, 3000]".
std::string shape_str(std::span<const int64_t> shape);

// Edge-label form of a type: tensors short as `T[B, Frames, Mels]`, optional tensors, scalars and
// `none` in full. With a binding, dims and dtypes print concrete: `f16[1, 3000, 128]`.
std::string type_label(const Type& type);
std::string type_label(const Type& type, const ConcreteBinding& binding);

}  // namespace earshot::program
