// Expanding and collapsing single calls of a drawn graph beyond expand_depth, and mapping the
// plan's step scopes back to the graph's calls for the time shares of a heat overlay.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "earshot/engine/backend/plan.h"
#include "earshot/engine/model/whisper_model.h"
#include "earshot/engine/program/graph_view.h"
#include "earshot/engine/program/graph_view_heat.h"

namespace {

using earshot::model::trace_whisper;
using earshot::program::build_view;
using earshot::program::Graph;
using earshot::program::GraphView;
using earshot::program::ScopeId;
using earshot::program::ScopeTiming;
using earshot::program::ViewOptions;

std::set<std::string> call_labels(const GraphView& view) {
    std::set<std::string> out;
    for (const auto& n : view.nodes) {
        if (n.kind == "call") out.insert(n.label);
    }
    return out;
}

std::set<std::string> group_labels(const GraphView& view) {
    std::set<std::string> out;
    for (const auto& g : view.groups) out.insert(g.label);
    return out;
}

// The scope of the call node or group drawn with `label`, -1 when none.
ScopeId scope_labelled(const GraphView& view, const std::string& label) {
    for (const auto& n : view.nodes) {
        if (n.kind == "call" && n.label == label) return n.scope;
    }
    for (const auto& g : view.groups) {
        if (g.label == label) return g.scope;
    }
    return -1;
}

TEST(GraphViewExpand, CallNodesAndGroupsCarryTheirScope) {
    const Graph graph = trace_whisper("encode");
    GraphView view = build_view(graph, ViewOptions{});
    for (const auto& n : view.nodes) {
        if (n.kind != "call") {
            EXPECT_EQ(n.scope, -1) << n.label;
            continue;
        }
        ASSERT_GT(n.scope, 0) << n.label;
        EXPECT_EQ(graph.scopes.at(static_cast<size_t>(n.scope)).label, n.label);
    }
    for (const auto& g : view.groups) {
        ASSERT_GT(g.scope, 0) << g.label;
        EXPECT_EQ(graph.scopes.at(static_cast<size_t>(g.scope)).label, g.label);
        EXPECT_EQ(g.id, "g" + std::to_string(g.scope));
    }
}

TEST(GraphViewExpand, ExpandingOneCallOpensOnlyThatCall) {
    const Graph graph = trace_whisper("encode");
    ViewOptions options;
    const GraphView before = build_view(graph, options);
    const ScopeId attention = scope_labelled(before, "self_attn.forward");
    ASSERT_GT(attention, 0);

    options.expand = {attention};
    const GraphView after = build_view(graph, options);
    EXPECT_FALSE(call_labels(after).count("self_attn.forward"));
    EXPECT_TRUE(group_labels(after).count("self_attn.forward"));
    // Its three calls appear as call nodes; the MLP stays collapsed.
    EXPECT_TRUE(call_labels(after).count("keys"));
    EXPECT_TRUE(call_labels(after).count("values"));
    EXPECT_TRUE(call_labels(after).count("attend"));
    EXPECT_TRUE(call_labels(after).count("mlp.forward"));
    EXPECT_EQ(scope_labelled(after, "self_attn.forward"), attention);
    EXPECT_EQ(after.nodes.size(), before.nodes.size() - 1 + 3);
}

TEST(GraphViewExpand, CollapsingAGroupMakesItOneCallNode) {
    const Graph graph = trace_whisper("encode");
    ViewOptions options;
    const GraphView before = build_view(graph, options);
    const ScopeId layer = scope_labelled(before, "encoder_layers[layer].forward");
    ASSERT_GT(layer, 0);

    options.collapse = {layer};
    const GraphView after = build_view(graph, options);
    EXPECT_EQ(call_labels(after),
              (std::set<std::string>{"encoder_layers[layer].forward"}));  // layer_norm is an op
    EXPECT_EQ(group_labels(after),
              (std::set<std::string>{"for layer in encoder_layers", "encoder_norm.forward"}));
    // The loop still shows the collapsed layer, and the edges around it are kept.
    const auto* node = after.node_labelled("encoder_layers[layer].forward");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->scope, layer);
    int into = 0;
    int out_of = 0;
    for (const auto& e : after.edges) {
        into += e.to == node->id ? 1 : 0;
        out_of += e.from == node->id ? 1 : 0;
    }
    EXPECT_EQ(into, 1);
    EXPECT_EQ(out_of, 1);

    // Collapse wins over expand; a deep call expanded inside a collapsed one stays hidden.
    options.expand = {layer};
    EXPECT_EQ(call_labels(build_view(graph, options)), call_labels(after));
    options.collapse = {layer};
    options.expand = {scope_labelled(before, "self_attn.forward")};
    EXPECT_EQ(call_labels(build_view(graph, options)), call_labels(after));
}

TEST(GraphViewExpand, DepthZeroWithOneCallExpanded) {
    const Graph graph = trace_whisper("encode");
    ViewOptions options;
    options.expand_depth = 0;
    const ScopeId norm = scope_labelled(build_view(graph, options), "encoder_norm.forward");
    ASSERT_GT(norm, 0);
    options.expand = {norm};
    const GraphView view = build_view(graph, options);
    EXPECT_EQ(call_labels(view), (std::set<std::string>{"encoder_layers[layer].forward"}));
    EXPECT_NE(view.node_labelled("layer_norm"), nullptr);
}

earshot::program::ConcreteBinding small_binding() {
    earshot::program::ConcreteBinding b;
    b.dims = {{"Mels", 80},
              {"Frames", 200},
              {"D", 64},
              {"Heads", 2},
              {"Inner", 256},
              {"EncoderLayers", 3},
              {"DecoderLayers", 2},
              {"Vocab", 51865},
              {"MaxTokens", 32},
              {"Batch", 1},
              {"B", 1},
              {"S", 3},
              {"A", 100}};
    b.elements = {{"T", earshot::program::DType::f32}};
    return b;
}

TEST(GraphViewHeat, StepScopesMapToTheirCalls) {
    const Graph graph = trace_whisper("encode");
    const GraphView view = build_view(graph, ViewOptions{});
    EXPECT_EQ(earshot::program::scope_of_step(graph, ""), earshot::program::kRootScope);
    EXPECT_EQ(earshot::program::scope_of_step(graph, "encoder_layers.2.forward"),
              scope_labelled(view, "encoder_layers[layer].forward"));
    EXPECT_EQ(earshot::program::scope_of_step(graph, "encoder_layers.17.forward > mlp.forward"),
              scope_labelled(view, "mlp.forward"));
    EXPECT_EQ(earshot::program::scope_of_step(graph, "encoder_norm.forward"),
              scope_labelled(view, "encoder_norm.forward"));
    EXPECT_EQ(earshot::program::scope_of_step(graph, "encoder_layers.x.forward"), -1);
    EXPECT_EQ(earshot::program::scope_of_step(graph, "mlp.forward"), -1);
    EXPECT_EQ(earshot::program::scope_of_step(graph, "encoder_layers.2.forward > mlp"), -1);

    // Every step the planner emits, for every entry, maps to a call of the traced graph.
    for (const char* entry : {"encode", "decode", "listen", "prefill", "step"}) {
        const Graph g = trace_whisper(entry);
        const auto plan = earshot::backend::build_plan(g, small_binding());
        ASSERT_FALSE(plan.steps.empty()) << entry;
        for (const auto& step : plan.steps) {
            const ScopeId s = earshot::program::scope_of_step(g, step.scope);
            EXPECT_GE(s, 0) << entry << ": " << step.scope;
        }
    }
}

TEST(GraphViewHeat, SharesAddUpAlongTheScopeTree) {
    const Graph graph = trace_whisper("encode");
    const GraphView view = build_view(graph, ViewOptions{});
    const std::vector<ScopeTiming> timings{
        {"", 2.0},  // conv1d: the root only
        {"encoder_layers.0.forward > self_attn.forward", 3.0},
        {"encoder_layers.1.forward > self_attn.forward", 1.0},
        {"encoder_layers.0.forward > mlp.forward", 2.0},
        {"encoder_layers.0.forward", 0.5},  // the residual adds
        {"encoder_norm.forward", 1.5},
    };
    const auto shares = earshot::program::scope_time_shares(graph, timings);
    const double total = 10.0;
    auto share = [&](const std::string& label) {
        auto at = shares.find(scope_labelled(view, label));
        return at == shares.end() ? -1.0 : at->second;
    };
    EXPECT_DOUBLE_EQ(share("self_attn.forward"), 4.0 / total);
    EXPECT_DOUBLE_EQ(share("mlp.forward"), 2.0 / total);
    EXPECT_DOUBLE_EQ(share("encoder_layers[layer].forward"), 6.5 / total);
    EXPECT_DOUBLE_EQ(share("for layer in encoder_layers"), 6.5 / total);
    EXPECT_DOUBLE_EQ(share("encoder_norm.forward"), 1.5 / total);
    EXPECT_EQ(share("final_layer_norm.forward"), -1.0);  // never timed: no entry
    EXPECT_TRUE(earshot::program::scope_time_shares(graph, {}).empty());
}

}  // namespace
