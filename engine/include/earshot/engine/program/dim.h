// Symbolic dimension expressions (`1 + (-1 + Frames) / 2`) in one normal form, with exact
// simplification, substitution, evaluation under a binding and printing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::program {

class Dim;

// Concrete values for dimension symbols, e.g. {"Frames": 3000}.
using DimValues = std::map<std::string, int64_t, std::less<>>;
// Symbolic values for dimension symbols, e.g. {"N": 1 + (-1 + Frames) / 2}.
using DimSubstitution = std::map<std::string, Dim, std::less<>>;

// Raised when a Dim cannot be evaluated: an unbound symbol or a division by zero.
class DimError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An integer-valued expression over named symbols.
//
// Normal form: a constant plus a sum of terms; each term is a non-zero integer coefficient times a
// sorted product of atoms. Atoms are symbols and the opaque operations floor-division, modulo, min
// and max; they are interned process-wide and ordered by creation. Terms print constant first,
// then in atom creation order. Exact division simplifies ((2 * X + 3) / 2 -> X + 1,
// (Heads * Dh) / Heads -> Dh); anything else becomes an opaque floor-division atom.
class Dim {
public:
    Dim() = default;
    Dim(int64_t constant);  // NOLINT(google-explicit-constructor): dims mix freely with integers
    Dim(int constant) : Dim(static_cast<int64_t>(constant)) {}  // NOLINT

    static Dim symbol(std::string_view name);
    static Dim min(const Dim& a, const Dim& b);
    static Dim max(const Dim& a, const Dim& b);

    friend Dim operator+(const Dim& a, const Dim& b);
    friend Dim operator-(const Dim& a, const Dim& b);
    friend Dim operator-(const Dim& a);
    friend Dim operator*(const Dim& a, const Dim& b);
    // Floor division (rounds towards negative infinity, like Python's //).
    friend Dim operator/(const Dim& a, const Dim& b);
    // Floor modulo: the result has the sign of the divisor.
    friend Dim operator%(const Dim& a, const Dim& b);

    friend bool operator==(const Dim& a, const Dim& b) = default;

    bool is_constant() const { return terms_.empty(); }
    std::optional<int64_t> constant() const;
    // True when the expression prints as more than one summand (it needs parentheses under `/`).
    bool is_sum() const;
    // The symbol's name when this Dim is exactly one symbol, else empty.
    std::optional<std::string> symbol_name() const;
    // Every symbol the expression mentions, in creation order, without repeats.
    std::vector<std::string> symbols() const;

    // Throws DimError naming the unbound symbol or the division by zero.
    int64_t evaluate(const DimValues& values) const;
    // Replaces symbols by expressions and renormalizes; unmapped symbols stay.
    Dim substitute(const DimSubstitution& substitution) const;

    std::string str() const;

private:
    struct Term {
        int64_t coefficient = 0;
        std::vector<uint32_t> atoms;  // sorted atom ids; repeats are powers
        friend bool operator==(const Term&, const Term&) = default;
    };

    static Dim from_atom(uint32_t atom);
    static Dim from_terms(int64_t constant, std::vector<Term> terms);
    friend struct DimAtoms;

    int64_t constant_ = 0;
    std::vector<Term> terms_;  // sorted by atom ids, coefficients non-zero
};

// Floor division and modulo on integers, as Dim uses them.
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

}  // namespace earshot::program
