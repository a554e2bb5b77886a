// Types, generics and block declarations: parsing, printing, substitution and syntax errors.
#include <gtest/gtest.h>

#include "earshot/engine/program/syntax.h"

namespace {

using earshot::program::Bindings;
using earshot::program::ConcreteBinding;
using earshot::program::Dim;
using earshot::program::DType;
using earshot::program::ElementType;
using earshot::program::GenericKind;
using earshot::program::MemberKind;
using earshot::program::parse_block;
using earshot::program::parse_type;
using earshot::program::SyntaxError;
using earshot::program::Type;
using earshot::program::type_label;
using earshot::program::Visibility;

TEST(Types, TensorTypesRoundTrip) {
    for (const char* text :
         {"Tensor[B, Mels, Frames; T]", "Tensor[B, 1 + (-1 + Frames) / 2, D; T]",
          "Tensor[*S, In; T]", "Tensor[Out; T]?", "Tensor[B, S; i32]", "i32",
          "Tensor[Q, Src; bool]?", "Tensor[B, Heads, N, D / Heads; T]", "Tensor[; f32]"}) {
        EXPECT_EQ(parse_type(text).str(), text);
    }
}

TEST(Types, KindsPacksAndOptionals) {
    Type mask = parse_type("Tensor[Q, K; bool]?");
    EXPECT_TRUE(mask.optional);
    EXPECT_EQ(mask.element, ElementType::of(DType::boolean));
    Type packed = parse_type("Tensor[*S, H; T]");
    EXPECT_TRUE(packed.has_pack());
    EXPECT_EQ(packed.shape[0].pack, "S");
    EXPECT_TRUE(packed.element.is_variable());
    EXPECT_THROW((void)packed.dims(), earshot::program::TypeError);
    Type pos = parse_type("i32");
    EXPECT_EQ(pos.kind, Type::Kind::scalar);
}

TEST(Types, BindingsExpandPacksAndElementVariables) {
    Bindings b;
    b.packs["S"] = {Dim::symbol("B"), Dim::symbol("N")};
    b.dims["H"] = Dim::symbol("D");
    b.elements["T"] = ElementType::of(DType::f16);
    EXPECT_EQ(b.apply(parse_type("Tensor[*S, H; T]")).str(), "Tensor[B, N, D; f16]");
    EXPECT_EQ(b.apply(parse_type("Tensor[H / 2; T]?")).str(), "Tensor[D / 2; f16]?");
}

TEST(Types, EdgeLabelsShortForTensorsFullOtherwise) {
    EXPECT_EQ(type_label(parse_type("Tensor[B, Frames, Mels; T]")), "T[B, Frames, Mels]");
    EXPECT_EQ(type_label(parse_type("Tensor[Q, K; bool]?")), "Tensor[Q, K; bool]?");
    EXPECT_EQ(type_label(parse_type("i32")), "i32");
    ConcreteBinding c;
    c.dims = {{"B", 2}, {"Frames", 3000}, {"Mels", 80}};
    c.elements = {{"T", DType::bf16}};
    EXPECT_EQ(type_label(parse_type("Tensor[B, Frames, Mels; T]"), c), "bf16[2, 3000, 80]");
    EXPECT_EQ(type_label(parse_type("Tensor[Frames, Frames; bool]?"), c),
              "Tensor[3000, 3000; bool]?");
    EXPECT_THROW((void)type_label(parse_type("Tensor[X; T]"), c), earshot::program::DimError);
}

TEST(Blocks, DeclarationsParseAndPrintInOrder) {
    auto block = parse_block("std.nn.linear::Linear<In: Dim, Out: Dim, T: Float = bf16>",
                             {"param weight: Tensor[Out, In; T]", "param bias: Tensor[Out; T]?",
                              "pub fn forward<*S: Shape>(x: Tensor[*S, In; T]) -> "
                              "Tensor[*S, Out; T]",
                              "where Out > 0"});
    EXPECT_EQ(block.module, "std.nn.linear");
    EXPECT_EQ(block.generics.at(2).kind, GenericKind::element);
    EXPECT_EQ(block.generics.at(2).default_value, "bf16");
    EXPECT_EQ(block.functions.at(0).generics.at(0).kind, GenericKind::shape);
    EXPECT_EQ(block.constraints.at(0).str(), "Out > 0");
    EXPECT_EQ(block.str(),
              "std.nn.linear::Linear<In: Dim, Out: Dim, T: Float = bf16>\n"
              "  param weight: Tensor[Out, In; T]\n"
              "  param bias: Tensor[Out; T]?\n"
              "  pub fn forward<*S: Shape>(x: Tensor[*S, In; T]) -> Tensor[*S, Out; T]");
}

TEST(Blocks, SubArraysStateAndVisibilities) {
    auto block = parse_block(
        "whisper::Model<D: Dim, Layers: Dim, T: Float = f32, Batch: Dim = 1>",
        {"sub layers: [Layer<D, 1 + (-1 + D) / 2, T>; Layers]", "state cache: Tensor[Batch, D; T]",
         "pub entry run(x: Tensor[Batch, D; T]) -> Tensor[Batch, D; T]",
         "fn helper(x: Tensor[Batch, D; T]) -> Tensor[Batch, D; T]"});
    const auto& layers = block.member("layers");
    EXPECT_EQ(layers.kind, MemberKind::sub);
    EXPECT_EQ(layers.str(), "sub layers: [Layer<D, 1 + (-1 + D) / 2, T>; Layers]");
    EXPECT_TRUE(std::holds_alternative<ElementType>(layers.sub.args.at(2)));
    EXPECT_EQ(block.member("cache").kind, MemberKind::state);
    EXPECT_EQ(block.function("run").visibility, Visibility::entry);
    EXPECT_EQ(block.function("helper").str(),
              "fn helper(x: Tensor[Batch, D; T]) -> Tensor[Batch, D; T]");
    EXPECT_EQ(block.generics.at(3).str(), "Batch: Dim = 1");
}

TEST(Blocks, ConstraintsEvaluate) {
    auto block = parse_block("whisper::Attention<D: Dim, Heads: Dim, T: Float>",
                             {"where Heads > 0", "where D % Heads == 0"});
    EXPECT_TRUE(block.constraints[1].holds({{"D", 1280}, {"Heads", 20}}));
    EXPECT_FALSE(block.constraints[1].holds({{"D", 1000}, {"Heads", 3}}));
    EXPECT_FALSE(block.constraints[0].holds({{"D", 1000}, {"Heads", 0}}));
}

TEST(Syntax, ErrorsNameThePosition) {
    EXPECT_THROW((void)parse_type("Tensor[B, S T]"), SyntaxError);
    EXPECT_THROW((void)parse_type("Tensor[B; T] extra"), SyntaxError);
    EXPECT_THROW((void)earshot::program::parse_dim("(A + 1"), SyntaxError);
    EXPECT_THROW((void)parse_block("whisper::X<A: Weird>", {}), SyntaxError);
    EXPECT_THROW((void)parse_block("whisper::X<*A: Dim>", {}), SyntaxError);
    try {
        (void)parse_block("whisper::X<A: Dim>", {"parm w: Tensor[A; f32]"});
        FAIL();
    } catch (const SyntaxError& e) {
        EXPECT_NE(std::string(e.what()).find("column 1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("parm w"), std::string::npos) << e.what();
    }
}

}  // namespace
