// The drawn graph of `encode` with one level of blocks expanded is the seed's picture: the same
// nodes, groups and typed edges, residuals included. Also depth 0 and 2, bound types, dot.
#include "earshot/engine/program/graph_view.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "earshot/engine/model/whisper_model.h"

namespace {

using earshot::model::trace_whisper;
using earshot::program::build_view;
using earshot::program::GraphView;
using earshot::program::ViewOptions;

const std::string kN = "1 + (-1 + Frames) / 2";

// Nodes named "label#k" for the k-th node with that label, so repeated ops stay apart.
std::map<std::string, std::string> names_by_id(const GraphView& view) {
    std::map<std::string, int> seen;
    std::map<std::string, std::string> names;
    for (const auto& n : view.nodes) names[n.id] = n.label + "#" + std::to_string(++seen[n.label]);
    return names;
}

std::map<std::string, std::string> group_labels(const GraphView& view) {
    std::map<std::string, std::string> labels{{"", ""}};
    for (const auto& g : view.groups) labels[g.id] = g.label;
    return labels;
}

GraphView encode_view(int depth) {
    ViewOptions options;
    options.expand_depth = depth;
    return build_view(trace_whisper("encode"), options);
}

TEST(GraphView, EncodeExpandedOneLevelIsTheSeedPicture) {
    GraphView view = encode_view(1);
    auto names = names_by_id(view);
    auto groups = group_labels(view);

    using Node = std::tuple<std::string, std::string, std::string, std::string>;
    std::vector<Node> nodes;
    for (const auto& n : view.nodes)
        nodes.emplace_back(n.kind, n.label, n.sublabel, groups[n.group]);
    const std::string layer = "encoder_layers[layer].forward";
    EXPECT_EQ(nodes, (std::vector<Node>{
                         {"input", "mel : Tensor[B, Mels, Frames; T]", "", ""},
                         {"op", "permute", "", ""},
                         {"op", "conv1d", "whisper", ""},
                         {"op", "gelu_erf", "std.nn.activations", ""},
                         {"op", "conv1d", "whisper", ""},
                         {"op", "gelu_erf", "std.nn.activations", ""},
                         {"op", "+", "", ""},
                         {"call", "self_attn_layer_norm.forward", "LayerNorm<D, T>", layer},
                         {"op", "none", "", layer},
                         {"call", "self_attn.forward", "Attention<D, Heads, T>", layer},
                         {"op", "+", "", layer},
                         {"call", "final_layer_norm.forward", "LayerNorm<D, T>", layer},
                         {"call", "mlp.forward", "Mlp<D, Inner, T>", layer},
                         {"op", "+", "", layer},
                         {"op", "layer_norm", "std.nn.norm", "encoder_norm.forward"},
                         {"output", "result : Tensor[B, " + kN + ", D; T]", "", ""},
                     }));

    using Group = std::tuple<std::string, std::string, std::string, std::string>;
    std::vector<Group> group_list;
    for (const auto& g : view.groups) {
        group_list.emplace_back(g.kind, g.label, g.sublabel, groups[g.parent]);
    }
    EXPECT_EQ(
        group_list,
        (std::vector<Group>{
            {"loop", "for layer in encoder_layers", "EncoderLayers", ""},
            {"call", layer, "EncoderLayer<D, Heads, Inner, T>", "for layer in encoder_layers"},
            {"call", "encoder_norm.forward", "LayerNorm<D, T>", ""},
        }));

    using Edge = std::tuple<std::string, std::string, std::string>;
    std::set<Edge> edges;
    for (const auto& e : view.edges) edges.emplace(names[e.from], names[e.to], e.label);
    const std::string x = "T[B, " + kN + ", D]";
    EXPECT_EQ(edges, (std::set<Edge>{
                         {"mel : Tensor[B, Mels, Frames; T]#1", "permute#1", "T[B, Mels, Frames]"},
                         {"permute#1", "conv1d#1", "T[B, Frames, Mels]"},
                         {"conv1d#1", "gelu_erf#1", "T[B, Frames, D]"},
                         {"gelu_erf#1", "conv1d#2", "T[B, Frames, D]"},
                         {"conv1d#2", "gelu_erf#2", x},
                         {"gelu_erf#2", "+#1", x},
                         {"+#1", "self_attn_layer_norm.forward#1", x},
                         {"+#1", "+#2", x},  // residual around attention
                         {"self_attn_layer_norm.forward#1", "self_attn.forward#1", x},
                         {"none#1", "self_attn.forward#1", "Tensor[" + kN + ", " + kN + "; bool]?"},
                         {"self_attn.forward#1", "+#2", x},
                         {"+#2", "final_layer_norm.forward#1", x},
                         {"+#2", "+#3", x},  // residual around the MLP
                         {"final_layer_norm.forward#1", "mlp.forward#1", x},
                         {"mlp.forward#1", "+#3", x},
                         {"+#3", "layer_norm#1", x},
                         {"layer_norm#1", "result : Tensor[B, " + kN + ", D; T]#1", x},
                     }));
    EXPECT_EQ(edges.size(), view.edges.size()) << "duplicate edges";
}

TEST(GraphView, DepthZeroKeepsTopLevelCallsCollapsed) {
    GraphView view = encode_view(0);
    std::vector<std::string> calls;
    for (const auto& n : view.nodes) {
        if (n.kind == "call") calls.push_back(n.label);
    }
    EXPECT_EQ(calls,
              (std::vector<std::string>{"encoder_layers[layer].forward", "encoder_norm.forward"}));
    ASSERT_EQ(view.groups.size(), 1U);
    EXPECT_EQ(view.groups[0].label, "for layer in encoder_layers");
}

TEST(GraphView, DepthTwoOpensTheAttentionBlock) {
    GraphView view = encode_view(2);
    auto groups = group_labels(view);
    std::set<std::string> inside_attention;
    for (const auto& n : view.nodes) {
        if (groups[n.group] == "self_attn.forward") inside_attention.insert(n.label);
    }
    EXPECT_EQ(inside_attention, (std::set<std::string>{"keys", "values", "attend"}));
    std::set<std::string> mlp;
    for (const auto& n : view.nodes) {
        if (groups[n.group] == "mlp.forward") mlp.insert(n.label + " " + n.sublabel);
    }
    EXPECT_EQ(mlp, (std::set<std::string>{"fc1.forward Linear<D, Inner, T>",
                                          "gelu_erf std.nn.activations",
                                          "fc2.forward Linear<Inner, D, T>"}));
}

TEST(GraphView, BoundLabelsAreConcrete) {
    earshot::program::ConcreteBinding binding;
    binding.dims = {{"Mels", 128},   {"Frames", 3000},      {"D", 1280}, {"Heads", 20},
                    {"Inner", 5120}, {"EncoderLayers", 32}, {"B", 1}};
    binding.elements = {{"T", earshot::program::DType::f16}};
    ViewOptions options;
    options.binding = &binding;
    GraphView view = build_view(trace_whisper("encode"), options);
    std::set<std::string> labels;
    for (const auto& e : view.edges) labels.insert(e.label);
    EXPECT_TRUE(labels.count("f16[1, 128, 3000]"));
    EXPECT_TRUE(labels.count("f16[1, 3000, 128]"));
    EXPECT_TRUE(labels.count("f16[1, 1500, 1280]"));
    EXPECT_TRUE(labels.count("Tensor[1500, 1500; bool]?"));
    EXPECT_EQ(view.groups.at(0).sublabel, "32");
}

TEST(GraphView, ParamsAppearOnRequest) {
    ViewOptions options;
    options.show_params = true;
    GraphView view = build_view(trace_whisper("encode"), options);
    const auto* conv1 = view.node_labelled("conv1_weight");
    ASSERT_NE(conv1, nullptr);
    EXPECT_EQ(conv1->kind, "param");
    EXPECT_EQ(conv1->sublabel, "T[D, Mels, 3]");
    EXPECT_EQ(encode_view(1).node_labelled("conv1_weight"), nullptr);
}

TEST(GraphView, JsonAndDotCarryTheSameGraph) {
    GraphView view = encode_view(1);
    auto j = nlohmann::json::parse(earshot::program::to_json(view));
    EXPECT_EQ(j["nodes"].size(), view.nodes.size());
    EXPECT_EQ(j["edges"].size(), view.edges.size());
    EXPECT_EQ(j["groups"][1]["parent"], view.groups[0].id);
    EXPECT_TRUE(j["nodes"][0]["group"].is_null());
    std::string dot = earshot::program::to_dot(view);
    EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos);
    EXPECT_NE(dot.find("style=dashed"), std::string::npos);
    EXPECT_NE(dot.find("[label=\"T[B, Frames, Mels]\"]"), std::string::npos);
    EXPECT_NE(dot.find(" -> "), std::string::npos);
}

TEST(GraphView, EveryEntryDrawsAtEveryDepth) {
    for (const char* entry : {"encode", "decode", "listen", "prefill", "step"}) {
        for (int depth = 0; depth <= 4; ++depth) {
            ViewOptions options;
            options.expand_depth = depth;
            GraphView view = build_view(trace_whisper(entry), options);
            std::set<std::string> ids;
            for (const auto& n : view.nodes) ids.insert(n.id);
            for (const auto& e : view.edges) {
                EXPECT_TRUE(ids.count(e.from) && ids.count(e.to)) << entry << " " << depth;
            }
            EXPECT_EQ(view.nodes.back().kind, "output") << entry;
        }
    }
}

}  // namespace
