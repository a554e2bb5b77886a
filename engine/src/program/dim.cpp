// Dim: the normal form of symbolic dimensions, the process-wide atom table and the printer.
#include "earshot/engine/program/dim.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <limits>
#include <mutex>
#include <numeric>
#include <unordered_map>
#include <utility>

namespace earshot::program {

namespace {

// Checked integer arithmetic. Dim values live in [-INT64_MAX, INT64_MAX]: INT64_MIN counts as an
// overflow too, so that negation never overflows and every value prints as a literal that parses.
int64_t in_range(int64_t value, bool overflowed, const char* operation) {
    if (overflowed || value == std::numeric_limits<int64_t>::min()) {
        throw DimError(std::string("integer overflow in dimension ") + operation);
    }
    return value;
}

int64_t checked_add(int64_t a, int64_t b) {
    int64_t out = 0;
    const bool overflowed = __builtin_add_overflow(a, b, &out);
    return in_range(out, overflowed, "addition");
}

int64_t checked_mul(int64_t a, int64_t b) {
    int64_t out = 0;
    const bool overflowed = __builtin_mul_overflow(a, b, &out);
    return in_range(out, overflowed, "multiplication");
}

int64_t checked_neg(int64_t a) { return -in_range(a, false, "negation"); }

}  // namespace

int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) throw DimError("division by zero");
    // INT64_MIN / -1 is the one quotient that does not fit.
    if (b == -1) return checked_neg(a);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
    if (b == 0) throw DimError("modulo by zero");
    if (b == -1) return 0;
    // The floor remainder is the truncated one moved into the divisor's sign; it always fits.
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

namespace {

enum class AtomKind { symbol, floor_div, mod, min, max };

struct Atom {
    AtomKind kind = AtomKind::symbol;
    std::string name;  // symbols only
    Dim a;
    Dim b;
};

}  // namespace

// The interned atoms. Ids are creation order; they never change during the process.
struct DimAtoms {
    std::mutex mutex;
    std::deque<Atom> atoms;
    std::unordered_map<std::string, uint32_t> by_key;

    static DimAtoms& instance() {
        static DimAtoms table;
        return table;
    }

    static std::string key_of(const Dim& d) {
        std::string key = std::to_string(d.constant_);
        for (const auto& term : d.terms_) {
            key += '|';
            key += std::to_string(term.coefficient);
            for (uint32_t id : term.atoms) {
                key += ':';
                key += std::to_string(id);
            }
        }
        return key;
    }

    uint32_t intern(AtomKind kind, std::string_view name, const Dim& a, const Dim& b) {
        std::string key;
        if (kind == AtomKind::symbol) {
            key = "s:" + std::string(name);
        } else {
            key = std::to_string(static_cast<int>(kind)) + "(" + key_of(a) + "," + key_of(b) + ")";
        }
        std::lock_guard lock(mutex);
        auto found = by_key.find(key);
        if (found != by_key.end()) return found->second;
        auto id = static_cast<uint32_t>(atoms.size());
        atoms.push_back(Atom{kind, std::string(name), a, b});
        by_key.emplace(std::move(key), id);
        return id;
    }

    Atom get(uint32_t id) {
        std::lock_guard lock(mutex);
        assert(id < atoms.size());
        return atoms[id];
    }

    static Dim atom_dim(AtomKind kind, const Dim& a, const Dim& b) {
        return Dim::from_atom(instance().intern(kind, {}, a, b));
    }
};

Dim::Dim(int64_t constant) : constant_(constant) {}

Dim Dim::from_atom(uint32_t atom) {
    Dim d;
    d.terms_.push_back(Term{1, {atom}});
    return d;
}

Dim Dim::from_terms(int64_t constant, std::vector<Term> terms) {
    std::sort(terms.begin(), terms.end(),
              [](const Term& x, const Term& y) { return x.atoms < y.atoms; });
    Dim d;
    d.constant_ = constant;
    for (auto& term : terms) {
        // A term without atoms is a constant (X / X times -1, say): it joins the constant, so
        // that every Dim has one normal form and prints as text that parses back.
        if (term.atoms.empty()) {
            d.constant_ = checked_add(d.constant_, term.coefficient);
            continue;
        }
        if (!d.terms_.empty() && d.terms_.back().atoms == term.atoms) {
            d.terms_.back().coefficient =
                checked_add(d.terms_.back().coefficient, term.coefficient);
        } else {
            d.terms_.push_back(std::move(term));
        }
    }
    std::erase_if(d.terms_, [](const Term& t) { return t.coefficient == 0; });
    return d;
}

Dim Dim::symbol(std::string_view name) {
    return from_atom(DimAtoms::instance().intern(AtomKind::symbol, name, Dim(), Dim()));
}

std::optional<int64_t> Dim::constant() const {
    if (!terms_.empty()) return std::nullopt;
    return constant_;
}

std::optional<std::string> Dim::symbol_name() const {
    if (constant_ != 0 || terms_.size() != 1 || terms_[0].coefficient != 1 ||
        terms_[0].atoms.size() != 1) {
        return std::nullopt;
    }
    Atom atom = DimAtoms::instance().get(terms_[0].atoms[0]);
    if (atom.kind != AtomKind::symbol) return std::nullopt;
    return atom.name;
}

std::vector<std::string> Dim::symbols() const {
    std::vector<uint32_t> ids;
    std::vector<std::string> names;
    auto visit = [&](auto&& self, const Dim& d) -> void {
        for (const auto& term : d.terms_) {
            for (uint32_t id : term.atoms) {
                Atom atom = DimAtoms::instance().get(id);
                if (atom.kind == AtomKind::symbol) {
                    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
                } else {
                    self(self, atom.a);
                    self(self, atom.b);
                }
            }
        }
    };
    visit(visit, *this);
    std::sort(ids.begin(), ids.end());
    for (uint32_t id : ids) names.push_back(DimAtoms::instance().get(id).name);
    return names;
}

Dim operator+(const Dim& a, const Dim& b) {
    std::vector<Dim::Term> terms = a.terms_;
    terms.insert(terms.end(), b.terms_.begin(), b.terms_.end());
    return Dim::from_terms(checked_add(a.constant_, b.constant_), std::move(terms));
}

Dim operator-(const Dim& a) {
    Dim negated = a;
    negated.constant_ = checked_neg(a.constant_);
    for (auto& term : negated.terms_) term.coefficient = checked_neg(term.coefficient);
    return negated;
}

Dim operator-(const Dim& a, const Dim& b) { return a + (-b); }

Dim operator*(const Dim& a, const Dim& b) {
    // (ca + sum_i ai) * (cb + sum_j bj), distributed term by term.
    std::vector<Dim::Term> terms;
    for (const auto& ta : a.terms_) {
        terms.push_back({checked_mul(ta.coefficient, b.constant_), ta.atoms});
    }
    for (const auto& tb : b.terms_) {
        terms.push_back({checked_mul(tb.coefficient, a.constant_), tb.atoms});
    }
    for (const auto& ta : a.terms_) {
        for (const auto& tb : b.terms_) {
            std::vector<uint32_t> atoms = ta.atoms;
            atoms.insert(atoms.end(), tb.atoms.begin(), tb.atoms.end());
            std::sort(atoms.begin(), atoms.end());
            terms.push_back({checked_mul(ta.coefficient, tb.coefficient), std::move(atoms)});
        }
    }
    return Dim::from_terms(checked_mul(a.constant_, b.constant_), std::move(terms));
}

namespace {

// Removes the atoms of `divisor` from `atoms` when all are present (multiset difference).
std::optional<std::vector<uint32_t>> divide_atoms(const std::vector<uint32_t>& atoms,
                                                  const std::vector<uint32_t>& divisor) {
    std::vector<uint32_t> rest;
    if (!std::includes(atoms.begin(), atoms.end(), divisor.begin(), divisor.end())) {
        return std::nullopt;
    }
    std::set_difference(atoms.begin(), atoms.end(), divisor.begin(), divisor.end(),
                        std::back_inserter(rest));
    return rest;
}

}  // namespace

Dim operator/(const Dim& a, const Dim& b) {
    if (auto k = b.constant()) {
        if (*k == 0) throw DimError("division by zero in " + a.str() + " / 0");
        if (*k == 1) return a;
        if (*k < 0) return (-a) / Dim(checked_neg(*k));
        if (auto c = a.constant()) return Dim(floor_div(*c, *k));
        // Terms whose coefficients k divides come out exactly; the rest stays under the floor.
        std::vector<Dim::Term> quotient;
        std::vector<Dim::Term> remainder;
        for (const auto& term : a.terms_) {
            if (term.coefficient % *k == 0) {
                quotient.push_back({term.coefficient / *k, term.atoms});
            } else {
                remainder.push_back(term);
            }
        }
        Dim exact = Dim::from_terms(0, std::move(quotient));
        if (remainder.empty()) return exact + Dim(floor_div(a.constant_, *k));
        Dim rest = Dim::from_terms(a.constant_, std::move(remainder));
        return exact + DimAtoms::atom_dim(AtomKind::floor_div, rest, b);
    }
    if (a == b) return Dim(1);
    if (a == Dim(0)) return Dim(0);
    // Exact division by a single term: every term of a holds the divisor's atoms.
    if (b.constant_ == 0 && b.terms_.size() == 1 && a.constant_ == 0) {
        const auto& divisor = b.terms_[0];
        std::vector<Dim::Term> quotient;
        bool exact = true;
        for (const auto& term : a.terms_) {
            auto rest = divide_atoms(term.atoms, divisor.atoms);
            if (!rest || term.coefficient % divisor.coefficient != 0) {
                exact = false;
                break;
            }
            quotient.push_back({term.coefficient / divisor.coefficient, std::move(*rest)});
        }
        if (exact) return Dim::from_terms(0, std::move(quotient));
    }
    return DimAtoms::atom_dim(AtomKind::floor_div, a, b);
}

Dim operator%(const Dim& a, const Dim& b) {
    if (auto k = b.constant()) {
        if (*k == 0) throw DimError("modulo by zero in " + a.str() + " % 0");
        if (*k == 1 || *k == -1) return Dim(0);
        if (auto c = a.constant()) return Dim(floor_mod(*c, *k));
        std::vector<Dim::Term> remainder;
        for (const auto& term : a.terms_) {
            if (term.coefficient % *k != 0) remainder.push_back(term);
        }
        if (remainder.empty()) return Dim(floor_mod(a.constant_, *k));
        return DimAtoms::atom_dim(AtomKind::mod, Dim::from_terms(a.constant_, std::move(remainder)),
                                  b);
    }
    Dim quotient = a / b;
    if (quotient * b == a) return Dim(0);
    return DimAtoms::atom_dim(AtomKind::mod, a, b);
}

Dim Dim::min(const Dim& a, const Dim& b) {
    // Two constants compare directly: their difference may not fit.
    if (a.is_constant() && b.is_constant()) return a.constant_ <= b.constant_ ? a : b;
    if (auto d = (a - b).constant()) return *d <= 0 ? a : b;
    auto [x, y] = DimAtoms::key_of(a) < DimAtoms::key_of(b) ? std::pair(a, b) : std::pair(b, a);
    return DimAtoms::atom_dim(AtomKind::min, x, y);
}

Dim Dim::max(const Dim& a, const Dim& b) {
    // Two constants compare directly: their difference may not fit.
    if (a.is_constant() && b.is_constant()) return a.constant_ >= b.constant_ ? a : b;
    if (auto d = (a - b).constant()) return *d >= 0 ? a : b;
    auto [x, y] = DimAtoms::key_of(a) < DimAtoms::key_of(b) ? std::pair(a, b) : std::pair(b, a);
    return DimAtoms::atom_dim(AtomKind::max, x, y);
}

int64_t Dim::evaluate(const DimValues& values) const {
    int64_t total = constant_;
    for (const auto& term : terms_) {
        int64_t product = term.coefficient;
        for (uint32_t id : term.atoms) {
            Atom atom = DimAtoms::instance().get(id);
            int64_t v = 0;
            switch (atom.kind) {
                case AtomKind::symbol: {
                    auto found = values.find(atom.name);
                    if (found == values.end()) {
                        throw DimError("no value for " + atom.name + " in " + str());
                    }
                    v = found->second;
                    break;
                }
                case AtomKind::floor_div: {
                    int64_t den = atom.b.evaluate(values);
                    if (den == 0) throw DimError("division by zero evaluating " + str());
                    v = floor_div(atom.a.evaluate(values), den);
                    break;
                }
                case AtomKind::mod: {
                    int64_t den = atom.b.evaluate(values);
                    if (den == 0) throw DimError("modulo by zero evaluating " + str());
                    v = floor_mod(atom.a.evaluate(values), den);
                    break;
                }
                case AtomKind::min:
                    v = std::min(atom.a.evaluate(values), atom.b.evaluate(values));
                    break;
                case AtomKind::max:
                    v = std::max(atom.a.evaluate(values), atom.b.evaluate(values));
                    break;
            }
            product = checked_mul(product, v);
        }
        total = checked_add(total, product);
    }
    return total;
}

Dim Dim::substitute(const DimSubstitution& substitution) const {
    if (substitution.empty()) return *this;
    Dim total(constant_);
    for (const auto& term : terms_) {
        Dim product(term.coefficient);
        for (uint32_t id : term.atoms) {
            Atom atom = DimAtoms::instance().get(id);
            Dim v;
            switch (atom.kind) {
                case AtomKind::symbol: {
                    auto found = substitution.find(atom.name);
                    v = found == substitution.end() ? Dim::from_atom(id) : found->second;
                    break;
                }
                case AtomKind::floor_div:
                    v = atom.a.substitute(substitution) / atom.b.substitute(substitution);
                    break;
                case AtomKind::mod:
                    v = atom.a.substitute(substitution) % atom.b.substitute(substitution);
                    break;
                case AtomKind::min:
                    v = Dim::min(atom.a.substitute(substitution), atom.b.substitute(substitution));
                    break;
                case AtomKind::max:
                    v = Dim::max(atom.a.substitute(substitution), atom.b.substitute(substitution));
                    break;
            }
            product = product * v;
        }
        total = total + product;
    }
    return total;
}

bool Dim::is_sum() const { return (constant_ != 0 ? 1U : 0U) + terms_.size() > 1; }

namespace {

// A divisor prints bare when it is one constant or one symbol, parenthesized otherwise.
bool is_simple(const Dim& d) { return d.is_constant() || d.symbol_name().has_value(); }

std::string atom_str(const Atom& atom) {
    auto operand = [](const Dim& d) { return d.is_sum() ? "(" + d.str() + ")" : d.str(); };
    auto divisor = [](const Dim& d) { return is_simple(d) ? d.str() : "(" + d.str() + ")"; };
    switch (atom.kind) {
        case AtomKind::symbol:
            return atom.name;
        case AtomKind::floor_div:
            return operand(atom.a) + " / " + divisor(atom.b);
        case AtomKind::mod:
            return operand(atom.a) + " % " + divisor(atom.b);
        case AtomKind::min:
            return "min(" + atom.a.str() + ", " + atom.b.str() + ")";
        case AtomKind::max:
            return "max(" + atom.a.str() + ", " + atom.b.str() + ")";
    }
    return {};
}

}  // namespace

std::string Dim::str() const {
    if (terms_.empty()) return std::to_string(constant_);
    std::string out;
    if (constant_ != 0) out = std::to_string(constant_);
    for (const auto& term : terms_) {
        int64_t magnitude = term.coefficient < 0 ? -term.coefficient : term.coefficient;
        bool several_factors = term.atoms.size() > 1 || magnitude != 1;
        std::string body = magnitude != 1 ? std::to_string(magnitude) : "";
        for (uint32_t id : term.atoms) {
            Atom atom = DimAtoms::instance().get(id);
            bool infix = atom.kind == AtomKind::floor_div || atom.kind == AtomKind::mod;
            std::string text = atom_str(atom);
            // A leading `-` binds tighter than `/` and `%`: -(X / 2) must not print as -X / 2.
            const bool leading_minus = term.coefficient < 0 && out.empty() && body.empty();
            if (infix && (several_factors || leading_minus)) text = "(" + text + ")";
            if (!body.empty()) body += " * ";
            body += text;
        }
        if (out.empty()) {
            out = term.coefficient < 0 ? "-" + body : body;
        } else {
            out += term.coefficient < 0 ? " - " : " + ";
            out += body;
        }
    }
    return out;
}

}  // namespace earshot::program
