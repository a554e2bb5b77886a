// A recursive-descent parser for the declaration syntax of blocks.
#include "earshot/engine/program/syntax.h"

#include <cctype>
#include <set>

namespace earshot::program {

namespace {

class Parser {
public:
    Parser(std::string_view text, std::set<std::string, std::less<>> element_vars = {})
        : text_(text), element_vars_(std::move(element_vars)) {}

    [[noreturn]] void fail(std::string_view what) const {
        throw SyntaxError(std::string(what) + " at column " + std::to_string(pos_ + 1) + " of `" +
                          std::string(text_) + "`");
    }

    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
            ++pos_;
        }
    }

    bool at_end() {
        skip_space();
        return pos_ >= text_.size();
    }

    bool peek(std::string_view token) {
        skip_space();
        return text_.substr(pos_, token.size()) == token;
    }

    bool accept(std::string_view token) {
        if (!peek(token)) return false;
        pos_ += token.size();
        return true;
    }

    void expect(std::string_view token) {
        if (!accept(token)) fail("expected `" + std::string(token) + "`");
    }

    bool peek_identifier() {
        skip_space();
        return pos_ < text_.size() &&
               (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_');
    }

    std::string identifier() {
        if (!peek_identifier()) fail("expected a name");
        size_t start = pos_;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                       text_[pos_] == '_' || text_[pos_] == '.')) {
            ++pos_;
        }
        return std::string(text_.substr(start, pos_ - start));
    }

    // dim := term (('+' | '-') term)*
    Dim dim() {
        Dim value = dim_term();
        while (true) {
            if (peek("->")) return value;
            if (accept("+")) {
                value = value + dim_term();
            } else if (accept("-")) {
                value = value - dim_term();
            } else {
                return value;
            }
        }
    }

    // term := unary (('*' | '/' | '%') unary)*
    Dim dim_term() {
        Dim value = dim_unary();
        while (true) {
            if (accept("*")) {
                value = value * dim_unary();
            } else if (accept("/")) {
                value = value / dim_unary();
            } else if (accept("%")) {
                value = value % dim_unary();
            } else {
                return value;
            }
        }
    }

    Dim dim_unary() {
        if (accept("-")) return -dim_unary();
        if (accept("(")) {
            Dim inner = dim();
            expect(")");
            return inner;
        }
        skip_space();
        if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            const size_t start = pos_;
            int64_t value = 0;
            bool overflowed = false;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                overflowed = overflowed || __builtin_mul_overflow(value, 10, &value) ||
                             __builtin_add_overflow(value, text_[pos_] - '0', &value);
                ++pos_;
            }
            if (overflowed) {
                pos_ = start;
                fail("integer literal does not fit in 64 bits");
            }
            return Dim(value);
        }
        std::string name = identifier();
        if (name == "min" || name == "max") {
            expect("(");
            Dim a = dim();
            expect(",");
            Dim b = dim();
            expect(")");
            return name == "min" ? Dim::min(a, b) : Dim::max(a, b);
        }
        return Dim::symbol(name);
    }

    ElementType element() {
        std::string name = identifier();
        if (auto d = parse_dtype(name)) return ElementType::of(*d);
        return ElementType::var(name);
    }

    // type := 'Tensor' '[' items ';' element ']' '?'? | element '?'?
    Type type() {
        Type t;
        if (accept("Tensor")) {
            expect("[");
            t.kind = Type::Kind::tensor;
            if (!peek(";")) {
                do {
                    if (accept("*")) {
                        t.shape.push_back(ShapeItem::pack_of(identifier()));
                    } else {
                        t.shape.push_back(ShapeItem::of(dim()));
                    }
                } while (accept(","));
            }
            expect(";");
            t.element = element();
            expect("]");
        } else {
            t = Type::scalar(element());
        }
        t.optional = accept("?");
        return t;
    }

    Generic generic() {
        Generic g;
        bool pack = accept("*");
        g.name = identifier();
        expect(":");
        std::string kind = identifier();
        if (kind == "Dim") {
            g.kind = GenericKind::dim;
        } else if (kind == "Shape") {
            g.kind = GenericKind::shape;
        } else if (kind == "Float") {
            g.kind = GenericKind::element;
        } else {
            fail("unknown generic kind `" + kind + "`");
        }
        if (pack != (g.kind == GenericKind::shape)) fail("`*` goes with Shape generics only");
        if (accept("=")) {
            skip_space();
            size_t start = pos_;
            while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '>') ++pos_;
            g.default_value = std::string(text_.substr(start, pos_ - start));
            while (!g.default_value.empty() && g.default_value.back() == ' ') {
                g.default_value.pop_back();
            }
        }
        return g;
    }

    std::vector<Generic> generics() {
        std::vector<Generic> out;
        if (!accept("<")) return out;
        do {
            out.push_back(generic());
        } while (accept(","));
        expect(">");
        return out;
    }

    SubType sub_type() {
        SubType s;
        bool array = accept("[");
        s.block = identifier();
        expect("<");
        do {
            skip_space();
            size_t mark = pos_;
            if (peek_identifier()) {
                std::string name = identifier();
                if (element_vars_.count(name) != 0 || parse_dtype(name)) {
                    skip_space();
                    if (peek(",") || peek(">")) {
                        s.args.emplace_back(parse_dtype(name) ? ElementType::of(*parse_dtype(name))
                                                              : ElementType::var(name));
                        continue;
                    }
                }
                pos_ = mark;
            }
            s.args.emplace_back(dim());
        } while (accept(","));
        expect(">");
        if (array) {
            expect(";");
            s.count = dim();
            expect("]");
        }
        return s;
    }

    FunctionDecl function(Visibility visibility) {
        FunctionDecl f;
        f.visibility = visibility;
        f.name = identifier();
        f.generics = generics();
        expect("(");
        if (!peek(")")) {
            do {
                Parameter p;
                p.name = identifier();
                expect(":");
                p.type = type();
                f.params.push_back(std::move(p));
            } while (accept(","));
        }
        expect(")");
        expect("->");
        f.result = type();
        return f;
    }

    Constraint constraint() {
        Constraint c;
        c.lhs = dim();
        if (accept("==")) {
            c.relation = Constraint::Relation::equal;
        } else if (accept(">=")) {
            c.relation = Constraint::Relation::greater_equal;
        } else if (accept(">")) {
            c.relation = Constraint::Relation::greater;
        } else {
            fail("expected ==, > or >=");
        }
        c.rhs = dim();
        return c;
    }

    void finish() {
        if (!at_end()) fail("unexpected text");
    }

private:
    std::string_view text_;
    size_t pos_ = 0;
    std::set<std::string, std::less<>> element_vars_;
};

}  // namespace

Dim parse_dim(std::string_view text) {
    Parser p(text);
    Dim d = p.dim();
    p.finish();
    return d;
}

Type parse_type(std::string_view text) {
    Parser p(text);
    Type t = p.type();
    p.finish();
    return t;
}

BlockDecl parse_block(std::string_view header, std::initializer_list<std::string_view> lines) {
    BlockDecl block;
    {
        Parser p(header);
        std::string qualified = p.identifier();
        p.expect("::");
        block.module = qualified;
        block.name = p.identifier();
        block.generics = p.generics();
        p.finish();
    }
    std::set<std::string, std::less<>> element_vars;
    for (const auto& g : block.generics) {
        if (g.kind == GenericKind::element) element_vars.insert(g.name);
    }
    for (std::string_view line : lines) {
        Parser p(line, element_vars);
        if (p.accept("where ")) {
            block.constraints.push_back(p.constraint());
        } else if (p.accept("pub entry ")) {
            block.functions.push_back(p.function(Visibility::entry));
        } else if (p.accept("pub fn ")) {
            block.functions.push_back(p.function(Visibility::pub_fn));
        } else if (p.accept("fn ")) {
            block.functions.push_back(p.function(Visibility::private_fn));
        } else {
            Member m;
            if (p.accept("param ")) {
                m.kind = MemberKind::param;
            } else if (p.accept("state ")) {
                m.kind = MemberKind::state;
            } else if (p.accept("sub ")) {
                m.kind = MemberKind::sub;
            } else {
                p.fail("expected param, state, sub, fn, pub fn, pub entry or where");
            }
            m.name = p.identifier();
            p.expect(":");
            if (m.kind == MemberKind::sub) {
                m.sub = p.sub_type();
            } else {
                m.type = p.type();
            }
            block.members.push_back(std::move(m));
        }
        p.finish();
    }
    return block;
}

}  // namespace earshot::program
