// Dim normal form, simplification, printing and evaluation.
#include "earshot/engine/program/dim.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "earshot/engine/program/syntax.h"

using earshot::program::Dim;
using earshot::program::DimError;
using earshot::program::floor_div;
using earshot::program::floor_mod;
using earshot::program::parse_dim;
using earshot::program::SyntaxError;

namespace {

const Dim kFrames = Dim::symbol("Frames");
const Dim kX = Dim::symbol("X");

TEST(Dim, ConvOutputLengthPrintsConstantFirst) {
    EXPECT_EQ(((kFrames - 1) / 2 + 1).str(), "1 + (-1 + Frames) / 2");
}

TEST(Dim, IdentityConvCollapsesToFrames) {
    Dim d = (kFrames + 2 - 3) / 1 + 1;
    EXPECT_EQ(d, kFrames);
    EXPECT_EQ(d.str(), "Frames");
}

TEST(Dim, ExactPartOfDivisionSimplifies) {
    Dim d = (2 * kX + 3) / 2;
    EXPECT_EQ(d, kX + 1);
    EXPECT_EQ(d.str(), "1 + X");
}

TEST(Dim, ProductDividedByFactorIsExact) {
    Dim heads = Dim::symbol("Heads");
    Dim dh = Dim::symbol("Dh");
    EXPECT_EQ((heads * dh) / heads, dh);
    EXPECT_EQ(((heads * dh) / heads).str(), "Dh");
}

TEST(Dim, InexactDivisionStaysOpaque) {
    Dim d = Dim::symbol("D") / Dim::symbol("Heads");
    EXPECT_EQ(d.str(), "D / Heads");
    EXPECT_FALSE(d.symbol_name().has_value());
    EXPECT_EQ(d * Dim::symbol("Heads") == Dim::symbol("D"), false);
}

TEST(Dim, EvaluatesUnderABinding) {
    Dim d = (kFrames - 1) / 2 + 1;
    EXPECT_EQ(d.evaluate({{"Frames", 3000}}), 1500);
    EXPECT_EQ(d.evaluate({{"Frames", 3001}}), 1501);
    EXPECT_EQ(d.evaluate({{"Frames", 600}}), 300);
    EXPECT_THROW((void)d.evaluate({{"D", 3}}), DimError);
}

TEST(Dim, FloorSemanticsForNegativeValues) {
    EXPECT_EQ((Dim(-3) / 2).constant(), -2);
    EXPECT_EQ((Dim(-3) % 2).constant(), 1);
    EXPECT_EQ((kX - 5).evaluate({{"X", 2}}), -3);
    EXPECT_EQ(((kX - 5) / 2).evaluate({{"X", 2}}), -2);
}

TEST(Dim, SameOpaqueAtomIsShared) {
    Dim a = (kFrames - 1) / 2;
    Dim b = (kFrames + 1 - 2) / 2;
    EXPECT_EQ(a, b);
    EXPECT_EQ(a - b, Dim(0));
}

TEST(Dim, SubstitutionRenormalizes) {
    Dim n = Dim::symbol("N");
    Dim d = (2 * n + 1) / 2;  // N + floor(1 / 2)
    EXPECT_EQ(d, n);
    Dim opaque = (n - 1) / 2 + 1;
    EXPECT_EQ(opaque.substitute({{"N", 2 * kX + 1}}), kX + 1);
    EXPECT_EQ(opaque.substitute({{"N", kFrames}}).str(), "1 + (-1 + Frames) / 2");
}

TEST(Dim, ModuloAndMinMax) {
    Dim d = Dim::symbol("D");
    Dim heads = Dim::symbol("Heads");
    EXPECT_EQ((d % heads).str(), "D % Heads");
    EXPECT_EQ((d % heads).evaluate({{"D", 1280}, {"Heads", 20}}), 0);
    EXPECT_EQ((d % heads).evaluate({{"D", 1000}, {"Heads", 3}}), 1);
    EXPECT_EQ(((heads * d) % heads), Dim(0));
    EXPECT_EQ(((4 * kX + 6) % 2), Dim(0));
    EXPECT_EQ(Dim::min(kX, kX + 1), kX);
    EXPECT_EQ(Dim::max(kX, kX + 1), kX + 1);
    EXPECT_EQ(Dim::min(kX, d).evaluate({{"X", 4}, {"D", 9}}), 4);
    EXPECT_EQ(Dim::max(kX, d).str(), Dim::max(d, kX).str());
}

TEST(Dim, PrintsProductsAndParenthesizedDivisions) {
    Dim d = Dim::symbol("D");
    Dim heads = Dim::symbol("Heads");
    EXPECT_EQ((2 * (d / heads)).str(), "2 * (D / Heads)");
    EXPECT_EQ((d / (heads * 2)).str(), "D / (2 * Heads)");
    Dim first = Dim::symbol("PrintOrderFirst");  // atoms print in creation order
    Dim second = Dim::symbol("PrintOrderSecond");
    EXPECT_EQ((first - second).str(), "PrintOrderFirst - PrintOrderSecond");
    EXPECT_EQ((second - first).str(), "-PrintOrderFirst + PrintOrderSecond");
    EXPECT_EQ((-kX).str(), "-X");
    EXPECT_EQ(Dim(0).str(), "0");
}

TEST(Dim, ParsesWhatItPrints) {
    for (const char* text : {"1 + (-1 + Frames) / 2", "D / Heads", "Frames", "3", "-1 + X",
                             "D % Heads", "2 * (D / Heads)", "min(Frames, X)"}) {
        EXPECT_EQ(parse_dim(text).str(), text) << text;
    }
    EXPECT_EQ(parse_dim("(Frames - 1) / 2 + 1"), (kFrames - 1) / 2 + 1);
    EXPECT_EQ(parse_dim("(Frames + 2 - 3) / 1 + 1"), kFrames);
    EXPECT_EQ(parse_dim("(2 * X + 3) / 2"), kX + 1);
    EXPECT_EQ(parse_dim("(Heads * Dh) / Heads"), Dim::symbol("Dh"));
}

TEST(Dim, ExactQuotientWithoutSymbolsIsAConstant) {
    // -X / X divides out every atom: the quotient is the constant -1, not a term without atoms
    // (which printed as "-" and did not parse back; found by the declaration-syntax fuzzer).
    EXPECT_EQ(-kX / kX, Dim(-1));
    EXPECT_EQ((-kX / kX).constant(), -1);
    EXPECT_EQ((-kX / kX / Dim::symbol("Y")).str(), "-1 / Y");
    const Dim found = parse_dim("1 + (-X / X / Y)");
    EXPECT_EQ(found.str(), "1 + -1 / Y");
    EXPECT_EQ(parse_dim(found.str()), found);
    EXPECT_EQ((3 * kX * kFrames / (kX * kFrames)), Dim(3));
}

TEST(Dim, DivisionByZeroConstantIsAnError) {
    EXPECT_THROW((void)(kX / 0), DimError);
    EXPECT_THROW((void)(kX / Dim::symbol("Z")).evaluate({{"X", 1}, {"Z", 0}}), DimError);
}

TEST(Dim, NegatedDivisionPrintsParenthesized) {
    // A leading minus binds tighter than `/` and `%`, so -(X / 2) needs its parentheses.
    const Dim half = -(kX / 2);
    EXPECT_EQ(half.str(), "-(X / 2)");
    EXPECT_EQ(parse_dim(half.str()), half);
    EXPECT_NE(parse_dim("-X / 2"), half);
    const Dim rest = -(kX % 3);
    EXPECT_EQ(rest.str(), "-(X % 3)");
    EXPECT_EQ(parse_dim(rest.str()), rest);
    EXPECT_EQ((1 - kX / 2).str(), "1 - X / 2");
}

TEST(Dim, IntegerLiteralsMustFitInt64) {
    constexpr int64_t max = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(parse_dim("9223372036854775807"), Dim(max));
    EXPECT_EQ(parse_dim("-9223372036854775807"), Dim(-max));
    EXPECT_THROW(parse_dim("9223372036854775808"), SyntaxError);
    EXPECT_THROW(parse_dim("99999999999999999999"), SyntaxError);
    EXPECT_THROW(parse_dim("X * 99999999999999999999"), SyntaxError);
}

TEST(Dim, ArithmeticOverflowIsADimError) {
    constexpr int64_t max = std::numeric_limits<int64_t>::max();
    EXPECT_THROW(parse_dim("9223372036854775807 + 1"), DimError);
    EXPECT_THROW(parse_dim("9223372036854775807 * 2"), DimError);
    EXPECT_THROW(parse_dim("4611686018427387904 * X * 2"), DimError);
    EXPECT_THROW(parse_dim("X * 9223372036854775807 + X"), DimError);
    // INT64_MIN is outside the range too, so every value negates and prints as a parsable literal.
    EXPECT_THROW(parse_dim("-9223372036854775807 - 1"), DimError);
    EXPECT_THROW((void)(Dim(-max) * kX - kX), DimError);
    EXPECT_THROW((void)(kX * kX).evaluate({{"X", int64_t{1} << 32}}), DimError);
    EXPECT_THROW((void)(kX + 1).evaluate({{"X", max}}), DimError);
    EXPECT_EQ((kX * kX).evaluate({{"X", 3037000499}}), 9223372030926249001);
    // Constants compare without subtracting, which could overflow.
    EXPECT_EQ(Dim::min(Dim(max), Dim(-max)), Dim(-max));
    EXPECT_EQ(Dim::max(Dim(max), Dim(-max)), Dim(max));
}

TEST(Dim, FloorDivisionAndModuloAtTheLimits) {
    constexpr int64_t max = std::numeric_limits<int64_t>::max();
    constexpr int64_t min = std::numeric_limits<int64_t>::min();
    EXPECT_THROW((void)floor_div(min, -1), DimError);
    EXPECT_EQ(floor_div(max, -1), -max);
    EXPECT_EQ(floor_div(-7, 2), -4);
    EXPECT_EQ(floor_mod(-7, 2), 1);
    EXPECT_EQ(floor_mod(7, -2), -1);
    EXPECT_EQ(floor_mod(max, -2), -1);  // a - floor_div(a, b) * b would overflow here
    EXPECT_EQ(floor_mod(min, -1), 0);
    EXPECT_EQ(floor_mod(min, max), max - 1);
}

}  // namespace
