// Planning a traced entry under a concrete binding: unrolled layers, resolved paths, arena reuse.
#include "earshot/engine/backend/plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "earshot/engine/model/whisper_model.h"

namespace {

using earshot::backend::build_plan;
using earshot::backend::ExecutionPlan;
using earshot::backend::SlotKind;
using earshot::program::OpKind;

earshot::program::ConcreteBinding tiny(int64_t frames = 3000) {
    earshot::program::ConcreteBinding b;
    b.dims = {{"Mels", 80},
              {"Frames", frames},
              {"D", 384},
              {"Heads", 6},
              {"Inner", 1536},
              {"EncoderLayers", 4},
              {"DecoderLayers", 4},
              {"Vocab", 51865},
              {"MaxTokens", 448},
              {"Batch", 1},
              {"B", 1},
              {"S", 3},
              {"A", (frames - 1) / 2 + 1}};
    b.elements = {{"T", earshot::program::DType::f16}};
    return b;
}

std::set<std::string> paths(const ExecutionPlan& plan, SlotKind kind) {
    std::set<std::string> out;
    for (const auto& slot : plan.slots) {
        if (slot.kind == kind) out.insert(slot.path);
    }
    return out;
}

TEST(Plan, EncodeUnrollsEveryLayerAndResolvesPaths) {
    ExecutionPlan plan = build_plan(earshot::model::trace_whisper("encode"), tiny());
    auto params = paths(plan, SlotKind::param);
    for (int layer = 0; layer < 4; ++layer) {
        const std::string prefix = "encoder_layers." + std::to_string(layer) + ".";
        EXPECT_TRUE(params.count(prefix + "self_attn.q_proj.weight")) << prefix;
        EXPECT_TRUE(params.count(prefix + "mlp.fc2.bias")) << prefix;
    }
    EXPECT_FALSE(params.count("encoder_layers.4.self_attn.q_proj.weight"));
    for (const auto& p : params) EXPECT_EQ(p.find('['), std::string::npos) << p;
    int attention = 0;
    for (const auto& step : plan.steps) attention += step.kind == OpKind::attention ? 1 : 0;
    EXPECT_EQ(attention, 4);
    const auto& out = plan.slots.at(static_cast<size_t>(plan.outputs.at(0)));
    EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 1500, 384}));
}

// No two arena values alive at once share bytes, except a view and the value it views (the same
// bytes on purpose): each value is followed to its root through views, and a root lives until the
// last use of any value in its group.
void expect_live_values_disjoint(const ExecutionPlan& plan) {
    std::vector<int32_t> root(plan.slots.size());
    for (size_t i = 0; i < root.size(); ++i) root[i] = static_cast<int32_t>(i);
    for (const auto& step : plan.steps) {
        if (step.alias) root[size_t(step.output)] = root[size_t(step.inputs.at(0))];
    }
    std::vector<int64_t> last_use(plan.slots.size(), -1);
    auto use = [&](int32_t slot, int64_t at) {
        auto& last = last_use[size_t(root[size_t(slot)])];
        last = std::max(last, at);
    };
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        for (int32_t in : plan.steps[s].inputs) use(in, int64_t(s));
    }
    for (int32_t o : plan.outputs) use(o, int64_t(plan.steps.size()));
    for (size_t a = 0; a < plan.steps.size(); ++a) {
        if (plan.steps[a].alias) continue;
        const auto& sa = plan.slots[static_cast<size_t>(plan.steps[a].output)];
        if (sa.kind != SlotKind::arena) continue;
        const int64_t end_a = std::max<int64_t>(last_use[size_t(plan.steps[a].output)], int64_t(a));
        for (size_t b = a + 1; b < plan.steps.size() && int64_t(b) <= end_a; ++b) {
            if (plan.steps[b].alias) continue;
            const auto& sb = plan.slots[static_cast<size_t>(plan.steps[b].output)];
            if (sb.kind != SlotKind::arena) continue;
            const bool disjoint = sa.offset_bytes + sa.size_bytes <= sb.offset_bytes ||
                                  sb.offset_bytes + sb.size_bytes <= sa.offset_bytes;
            EXPECT_TRUE(disjoint) << plan.entry << ": steps " << a << " and " << b
                                  << " share bytes";
        }
    }
}

TEST(Plan, ArenaReusesBuffers) {
    ExecutionPlan plan = build_plan(earshot::model::trace_whisper("encode"), tiny());
    EXPECT_GT(plan.arena_bytes, 0);
    // Without reuse every intermediate of every layer would need its own buffer.
    EXPECT_LT(plan.arena_bytes * 4, plan.naive_bytes);
    expect_live_values_disjoint(plan);
}

// The decoder step's rewrites: the mask `iota(MaxTokens) <= pos` is computed once for all
// layers, and the single position's head splits and merges and the mask's reshape are views
// that share their input's bytes; nothing live overlaps anything else.
TEST(Plan, StepComputesTheMaskOnceAndViewsItsSinglePositionHeads) {
    ExecutionPlan plan = build_plan(earshot::model::trace_whisper("step"), tiny());
    std::map<OpKind, int> computed;
    std::map<OpKind, int> views;
    for (const auto& step : plan.steps) ++(step.alias ? views : computed)[step.kind];
    EXPECT_EQ(computed[OpKind::iota], 1);
    EXPECT_EQ(computed[OpKind::less_equal], 1);
    EXPECT_EQ(views[OpKind::reshape], 1);
    EXPECT_EQ(computed[OpKind::reshape], 0);
    // 4 layers: keys, values, self queries and cross queries split; self and cross merged.
    EXPECT_EQ(views[OpKind::split_heads], 4 * 4);
    EXPECT_EQ(views[OpKind::merge_heads], 4 * 2);
    EXPECT_EQ(computed[OpKind::split_heads] + computed[OpKind::merge_heads], 0);
    for (const auto& step : plan.steps) {
        if (!step.alias) continue;
        const auto& in = plan.slots[size_t(step.inputs.at(0))];
        const auto& out = plan.slots[size_t(step.output)];
        EXPECT_EQ(in.offset_bytes, out.offset_bytes);
        EXPECT_EQ(in.size_bytes, out.size_bytes);
    }
    expect_live_values_disjoint(plan);

    // Epilogues: every fc1 takes its GELU in, every out_proj and fc2 its residual add (self
    // attention, cross attention and MLP of each of the 4 layers); only the embedding's add of
    // the positions stays an add.
    int gelu_epilogues = 0;
    int residual_epilogues = 0;
    for (const auto& step : plan.steps) {
        if (step.kind != OpKind::linear) continue;
        gelu_epilogues += earshot::backend::linear_gelu_epilogue(step) ? 1 : 0;
        residual_epilogues += earshot::backend::linear_residual_input(step) ? 1 : 0;
    }
    EXPECT_EQ(gelu_epilogues, 4);
    EXPECT_EQ(residual_epilogues, 4 * 3);
    EXPECT_EQ(computed[OpKind::gelu_erf], 0);
    EXPECT_EQ(computed[OpKind::add], 1);

    // The encoder's 1500 positions are no view: its heads are really split.
    ExecutionPlan encode = build_plan(earshot::model::trace_whisper("encode"), tiny());
    for (const auto& step : encode.steps) {
        EXPECT_FALSE(step.alias && step.kind != OpKind::reshape) << "encode step " << step.scope;
    }
}

TEST(Plan, StepWritesCachesInPlaceAndReadsPosAtRunTime) {
    ExecutionPlan plan = build_plan(earshot::model::trace_whisper("step"), tiny());
    auto states = paths(plan, SlotKind::state);
    EXPECT_TRUE(states.count("decoder_layers.0.self_k"));
    EXPECT_TRUE(states.count("decoder_layers.3.cross_v"));
    int writes = 0;
    for (const auto& step : plan.steps) {
        if (step.kind != OpKind::write_at) continue;
        ++writes;
        EXPECT_EQ(step.output, step.inputs.at(0)) << "a cache write must alias its state";
        EXPECT_EQ(plan.slots[static_cast<size_t>(step.output)].kind, SlotKind::state);
        EXPECT_TRUE(plan.slots[static_cast<size_t>(step.inputs.at(2))].scalar);
    }
    EXPECT_EQ(writes, 8);  // self_k and self_v in each of 4 layers
}

TEST(Plan, ShortWindowsPlanWithTheirOwnLengths) {
    ExecutionPlan plan = build_plan(earshot::model::trace_whisper("encode"), tiny(600));
    const auto& out = plan.slots.at(static_cast<size_t>(plan.outputs.at(0)));
    EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 300, 384}));
}

}  // namespace
