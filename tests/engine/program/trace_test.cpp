// Tracing the Whisper program: every entry and every block function yields exactly its declared
// result type, and a wrong declaration is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "earshot/engine/model/whisper_model.h"
#include "earshot/engine/program/syntax.h"

namespace {

using earshot::model::make_whisper_block;
using earshot::model::trace_whisper;
using earshot::model::whisper_blocks;
using earshot::model::WhisperModel;
using earshot::program::BlockDecl;
using earshot::program::ConcreteBinding;
using earshot::program::DType;
using earshot::program::Graph;
using earshot::program::OpKind;
using earshot::program::parse_type;
using earshot::program::ScopeKind;
using earshot::program::symbolic_args;
using earshot::program::trace_function;
using earshot::program::TypeError;

std::string result_of(const Graph& g) { return g.type(g.outputs.at(0)).str(); }

TEST(Trace, EveryEntryYieldsItsDeclaredType) {
    const std::vector<std::pair<std::string, std::string>> expected{
        {"encode", "Tensor[B, 1 + (-1 + Frames) / 2, D; T]"},
        {"decode", "Tensor[B, S, Vocab; T]"},
        {"listen", "Tensor[Batch, 1 + (-1 + Frames) / 2, D; T]"},
        {"prefill", "Tensor[Batch, Vocab; T]"},
        {"step", "Tensor[Batch, Vocab; T]"},
    };
    for (const auto& [entry, type] : expected) {
        Graph g = trace_whisper(entry);
        EXPECT_EQ(result_of(g), type) << entry;
        EXPECT_EQ(g.type(g.outputs.at(0)), WhisperModel::declaration().function(entry).result)
            << entry;
    }
}

TEST(Trace, EveryFunctionOfEveryBlockTypeChecks) {
    int traced = 0;
    for (const BlockDecl* decl : whisper_blocks()) {
        auto block = make_whisper_block(*decl, symbolic_args(*decl), "block");
        for (const auto& f : decl->functions) {
            Graph g;
            ASSERT_NO_THROW(g = trace_function(*block, f.name)) << decl->name << "." << f.name;
            ASSERT_EQ(g.outputs.size(), 1U);
            EXPECT_EQ(g.inputs.size(), f.params.size());
            ++traced;
        }
    }
    // Model 6, Attention 4, DecoderLayer 5, and one each for Embedding, EncoderLayer, LayerNorm,
    // Linear, Mlp and RmsNorm.
    EXPECT_EQ(traced, 21);
}

TEST(Trace, WrongResultDeclarationIsCaught) {
    BlockDecl wrong = earshot::model::Mlp::declaration();
    wrong.functions.at(0).result = parse_type("Tensor[*S, Inner; T]");
    auto mlp = make_whisper_block(wrong, symbolic_args(wrong), "mlp");
    try {
        (void)trace_function(*mlp, "forward");
        FAIL() << "a wrong result type traced";
    } catch (const TypeError& e) {
        std::string message = e.what();
        EXPECT_NE(message.find("whisper::Mlp.forward"), std::string::npos) << message;
        EXPECT_NE(message.find("Tensor[*S, Inner; T]"), std::string::npos) << message;
        EXPECT_NE(message.find("Tensor[S, D; T]"), std::string::npos) << message;
    }
}

TEST(Trace, WrongEntryDeclarationIsCaught) {
    BlockDecl wrong = WhisperModel::declaration();
    for (auto& f : wrong.functions) {
        if (f.name == "encode") f.result = parse_type("Tensor[B, Frames, D; T]");
    }
    WhisperModel model(symbolic_args(wrong), wrong);
    EXPECT_THROW((void)trace_function(model, "encode"), TypeError);
    EXPECT_NO_THROW((void)trace_function(model, "decode"));
}

TEST(Trace, WrongParamDeclarationIsCaughtWhereItIsUsed) {
    BlockDecl wrong = earshot::model::LayerNorm::declaration();
    wrong.members.at(0).type = parse_type("Tensor[D + 1; T]");
    auto norm = make_whisper_block(wrong, symbolic_args(wrong), "norm");
    try {
        (void)trace_function(*norm, "forward");
        FAIL() << "a wrong weight type traced";
    } catch (const TypeError& e) {
        EXPECT_NE(std::string(e.what()).find("layer_norm"), std::string::npos) << e.what();
    }
}

TEST(Trace, WrongArgumentAtACallSiteIsCaught) {
    // Attention.attend over keys whose head dim is not D / Heads.
    BlockDecl wrong = earshot::model::Attention::declaration();
    for (auto& f : wrong.functions) {
        if (f.name == "keys") f.result = parse_type("Tensor[B, Heads, N, D; T]");
    }
    auto attention = make_whisper_block(wrong, symbolic_args(wrong), "attn");
    EXPECT_THROW((void)trace_function(*attention, "forward"), TypeError);
}

TEST(Trace, EncodeRecordsTheStemLoopAndParams) {
    Graph g = trace_whisper("encode");
    std::vector<const earshot::program::Op*> convs;
    std::set<std::string> params;
    for (const auto& op : g.ops) {
        if (op.kind == OpKind::conv1d) convs.push_back(&op);
        if (op.kind == OpKind::param) params.insert(std::get<std::string>(op.attr("path")));
    }
    ASSERT_EQ(convs.size(), 2U);
    EXPECT_EQ(std::get<int64_t>(convs[0]->attr("stride")), 1);
    EXPECT_EQ(std::get<int64_t>(convs[1]->attr("stride")), 2);
    EXPECT_EQ(std::get<int64_t>(convs[1]->attr("padding")), 1);
    EXPECT_TRUE(params.count("conv1_weight"));
    EXPECT_TRUE(params.count("encoder_positions"));
    EXPECT_TRUE(params.count("encoder_layers[layer].self_attn.k_proj.weight"));
    EXPECT_TRUE(params.count("encoder_layers[layer].self_attn.k_proj.bias"));
    EXPECT_TRUE(params.count("encoder_layers[layer].mlp.fc2.bias"));
    EXPECT_TRUE(params.count("encoder_norm.weight"));
    EXPECT_FALSE(params.count("token_embedding"));

    auto loop = std::find_if(g.scopes.begin(), g.scopes.end(),
                             [](const auto& s) { return s.kind == ScopeKind::loop; });
    ASSERT_NE(loop, g.scopes.end());
    EXPECT_EQ(loop->label, "for layer in encoder_layers");
    EXPECT_EQ(loop->count.str(), "EncoderLayers");
    ASSERT_EQ(loop->carried_in.size(), 1U);
    EXPECT_EQ(g.type(loop->carried_out.at(0)).str(), "Tensor[B, 1 + (-1 + Frames) / 2, D; T]");
}

TEST(Trace, StepWritesTheSelfCacheAtPosAndReadsCrossCache) {
    Graph g = trace_whisper("step");
    int write_at = 0;
    std::set<std::string> states;
    for (const auto& op : g.ops) {
        if (op.kind == OpKind::write_at) ++write_at;
        if (op.kind == OpKind::state) states.insert(std::get<std::string>(op.attr("path")));
    }
    EXPECT_EQ(write_at, 2);
    EXPECT_EQ(states, (std::set<std::string>{
                          "decoder_layers[layer].self_k", "decoder_layers[layer].self_v",
                          "decoder_layers[layer].cross_k", "decoder_layers[layer].cross_v"}));
    EXPECT_EQ(g.input_names, (std::vector<std::string>{"token", "pos"}));
    EXPECT_EQ(g.type(g.inputs.at(1)).str(), "i32");
}

TEST(Trace, ListenFillsTheCrossCaches) {
    Graph g = trace_whisper("listen");
    int spans = 0;
    for (const auto& op : g.ops) {
        if (op.kind != OpKind::write_span) continue;
        ++spans;
        EXPECT_EQ(g.type(op.output).str(),
                  "Tensor[Batch, Heads, 1 + (-1 + Frames) / 2, D / "
                  "Heads; T]");
    }
    EXPECT_EQ(spans, 2);
}

TEST(Trace, TypesEvaluateUnderALargeV3Binding) {
    ConcreteBinding binding;
    binding.dims = {{"Mels", 128},    {"Frames", 3000},      {"D", 1280},
                    {"Heads", 20},    {"Inner", 5120},       {"EncoderLayers", 32},
                    {"Vocab", 51866}, {"DecoderLayers", 32}, {"MaxTokens", 448},
                    {"B", 1},         {"Batch", 1},          {"S", 3},
                    {"A", 1500}};
    binding.elements = {{"T", DType::f16}};
    Graph encode = trace_whisper("encode");
    EXPECT_EQ(type_label(encode.type(encode.outputs.at(0)), binding), "f16[1, 1500, 1280]");
    Graph prefill = trace_whisper("prefill");
    EXPECT_EQ(type_label(prefill.type(prefill.outputs.at(0)), binding), "f16[1, 51866]");
    for (const auto& op : encode.ops) {
        if (op.kind == OpKind::attention) {
            EXPECT_EQ(std::get<earshot::program::Dim>(op.attr("scale_dim")).evaluate(binding.dims),
                      64);
        }
    }
}

}  // namespace

namespace {

TEST(Trace, UnknownFunctionIsATypeError) {
    const auto& decl = earshot::model::Mlp::declaration();
    auto mlp = make_whisper_block(decl, symbolic_args(decl), "mlp");
    earshot::program::GraphBuilder b("nope");
    try {
        (void)mlp->invoke(b, "backward", {});
        FAIL() << "an undeclared function traced";
    } catch (const TypeError& e) {
        EXPECT_NE(std::string(e.what()).find("whisper::Mlp has no function backward"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
