// Taps on the CPU backend: names as the graph draws them, the tapped output of
// `encoder_layers[0].forward` against a double-precision encoder layer, a value whose arena bytes
// a later step reuses, a tap inside a decoder step at a later position, runs unchanged by taps,
// and unknown names answered with the closest ones.
#include "earshot/engine/backend/tap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "backend/tap_test_model.h"
#include "backend/whisper_plans.h"
#include "backend_test_data.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/model/whisper_model.h"
#include "earshot/engine/program/graph_view.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "reference/encoder_layer_reference.h"

namespace ref = earshot::test::reference;
using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;
using earshot::backend::TapError;
using earshot::backend::TappableEdge;
using earshot::backend::TapSet;

namespace {

using namespace earshot::test::backend_data;
using namespace earshot::test::taps;

// The CPU backend against the double-precision reference (cpu_backend_test.cpp's tolerance:
// max |got - want| / max |want|, measured at most 8.2e-7 there).
constexpr double kReferenceTolerance = 1e-5;
// The same backend, a cached step against the full causal pass (cpu_backend_test.cpp).
constexpr double kCacheTolerance = 1e-5;

class TapsOnCpu : public TapTestModel {};

TEST_F(TapsOnCpu, EdgesAreNamedAsTheGraphDrawsThem) {
    CpuWhisper cpu(*checkpoint_);
    const std::vector<TappableEdge> encode = cpu.tappable_edges("encode");
    const TappableEdge* layer = earshot::backend::find_edge(encode, "encoder_layers[1].forward");
    ASSERT_NE(layer, nullptr);
    EXPECT_TRUE(layer->block_output);
    EXPECT_EQ(layer->shape, (std::vector<int64_t>{1, 100, 64}));
    EXPECT_EQ(layer->dtype, "f32");
    EXPECT_EQ(layer->symbolic_type, "T[B, 1 + (-1 + Frames) / 2, D]");
    EXPECT_EQ(layer->loop_indices, (std::vector<std::pair<std::string, int64_t>>{{"layer", 1}}));
    // The same listing without a backend, from the binding alone.
    const auto listed = earshot::backend::list_tappable_edges(checkpoint_->binding, "encode");
    ASSERT_EQ(listed.size(), encode.size());
    for (size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(listed[i].name, encode[i].name);
    // Names are unique across names and aliases.
    std::vector<std::string> all;
    for (const TappableEdge& e : encode) {
        all.push_back(e.name);
        all.insert(all.end(), e.aliases.begin(), e.aliases.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());

    // A clicked graph edge leads to its taps: the view's edge carries the traced value, one tap
    // per layer carries it.
    const earshot::program::Graph graph = earshot::model::trace_whisper("encode");
    const earshot::program::GraphView view =
        earshot::program::build_view(graph, earshot::program::ViewOptions{});
    const bool drawn = std::any_of(view.edges.begin(), view.edges.end(),
                                   [&](const auto& edge) { return edge.value == layer->value; });
    EXPECT_TRUE(drawn) << "no graph edge carries " << layer->name;
    const auto per_layer = earshot::backend::edges_of_value(encode, layer->value);
    ASSERT_EQ(per_layer.size(), 2U);
    EXPECT_EQ(per_layer[0]->name, "encoder_layers[0].forward");
    EXPECT_EQ(per_layer[1]->name, "encoder_layers[1].forward");

    const auto step = cpu.tappable_edges("step");
    const TappableEdge* cross =
        earshot::backend::find_edge(step, "decoder_layers[1].encoder_attn.attend");
    ASSERT_NE(cross, nullptr);
    EXPECT_EQ(cross->shape, (std::vector<int64_t>{1, 1, 64}));
}

TEST_F(TapsOnCpu, UnknownNameNamesTheClosest) {
    const auto edges = earshot::backend::list_tappable_edges(checkpoint_->binding, "encode");
    try {
        earshot::backend::require_edge(edges, "encoder_layer[0].forwad", "encode");
        FAIL() << "an unknown edge was accepted";
    } catch (const TapError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("no edge 'encoder_layer[0].forwad' in encode"), std::string::npos)
            << message;
        EXPECT_NE(message.find("closest: 'encoder_layers[0].forward'"), std::string::npos)
            << message;
    }
    EXPECT_THROW(earshot::backend::list_tappable_edges(checkpoint_->binding, "decoder"), TapError);
}

TEST_F(TapsOnCpu, EncoderLayerZeroMatchesTheDoublePrecisionLayer) {
    const ref::Weights weights = reference_weights(checkpoint_->weights, dims_);
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 1);
    CpuWhisper cpu(*checkpoint_);
    TapSet taps({"encoder_layers[0].forward", "encoder_layers[0].self_attn_layer_norm.forward"});
    cpu.set_taps(&taps);
    cpu.encode(mel);
    const auto* layer = taps.value("encoder_layers[0].forward");
    const auto* normed = taps.value("encoder_layers[0].self_attn_layer_norm.forward");
    ASSERT_TRUE(layer->filled);
    ASSERT_TRUE(normed->filled);
    EXPECT_EQ(layer->tensor.shape(), (std::vector<int64_t>{1, 100, 64}));
    EXPECT_EQ(layer->entry, "whisper::Model.encode");
    EXPECT_EQ(layer->refreshes, 1U);

    const ref::Matrix stem = ref::encoder_stem(weights, dims_, to_array(mel), 0);
    const ref::Matrix want = ref::encoder_layer(weights, dims_, 0, stem);
    const double error = relative_error(layer->tensor.f32_values(), want.values);
    std::printf("encoder_layers[0].forward vs the double-precision layer: %.3g\n", error);
    EXPECT_LE(error, kReferenceTolerance);
    const ref::Matrix want_normed =
        ref::layer_norm(stem, weights.at("encoder_layers.0.self_attn_layer_norm.weight"),
                        weights.at("encoder_layers.0.self_attn_layer_norm.bias"));
    EXPECT_LE(relative_error(normed->tensor.f32_values(), want_normed.values), kReferenceTolerance);
}

// The first step after `edge` that writes arena bytes the edge's value occupied (its memory
// handed on by the plan's reuse), or -1.
int64_t later_writer_of_its_bytes(const earshot::backend::ExecutionPlan& plan,
                                  const TappableEdge& edge) {
    const auto& slot = plan.slots[static_cast<size_t>(edge.slot)];
    for (size_t s = static_cast<size_t>(edge.step) + 1; s < plan.steps.size(); ++s) {
        const auto& step = plan.steps[s];
        const auto& out = plan.slots[static_cast<size_t>(step.output)];
        if (step.alias || out.kind != earshot::backend::SlotKind::arena) continue;
        const bool overlap = out.offset_bytes < slot.offset_bytes + slot.size_bytes &&
                             slot.offset_bytes < out.offset_bytes + out.size_bytes;
        if (overlap) return static_cast<int64_t>(s);
    }
    return -1;
}

TEST_F(TapsOnCpu, ValueWhoseBytesAreReusedLaterIsStillRight) {
    earshot::backend::WhisperPlans plans(checkpoint_->binding);
    const auto& plan = plans.plan("encode", 1, {{"B", 1}});
    const auto edges = earshot::backend::list_tappable_edges(plan, plans.graph("encode"));
    const TappableEdge& normed = earshot::backend::require_edge(
        edges, "encoder_layers[0].self_attn_layer_norm.forward", "encode");
    const TappableEdge& layer =
        earshot::backend::require_edge(edges, "encoder_layers[0].forward", "encode");
    // Both values' bytes are written again later in the plan: a copy taken at the end of the
    // run would read another value.
    ASSERT_GE(later_writer_of_its_bytes(plan, normed), 0);
    ASSERT_GE(later_writer_of_its_bytes(plan, layer), 0);

    const ref::Weights weights = reference_weights(checkpoint_->weights, dims_);
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 2);
    CpuWhisper cpu(*checkpoint_);
    TapSet taps({normed.name, layer.name});
    cpu.set_taps(&taps);
    cpu.encode(mel);
    const ref::Matrix stem = ref::encoder_stem(weights, dims_, to_array(mel), 0);
    const ref::Matrix want_normed =
        ref::layer_norm(stem, weights.at("encoder_layers.0.self_attn_layer_norm.weight"),
                        weights.at("encoder_layers.0.self_attn_layer_norm.bias"));
    EXPECT_LE(relative_error(taps.value(normed.name)->tensor.f32_values(), want_normed.values),
              kReferenceTolerance);
    const ref::Matrix want_layer = ref::encoder_layer(weights, dims_, 0, stem);
    EXPECT_LE(relative_error(taps.value(layer.name)->tensor.f32_values(), want_layer.values),
              kReferenceTolerance);
}

TEST_F(TapsOnCpu, TapsDoNotChangeTheOutputs) {
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 0);
    const HostTensor tokens = HostTensor::i32({1, 3}, {5, 17, 300});
    auto run = [&](TapSet* taps) {
        CpuWhisper cpu(*checkpoint_);
        cpu.set_taps(taps);
        std::vector<HostTensor> out;
        out.push_back(cpu.encode(mel));
        out.push_back(cpu.listen(mel));
        out.push_back(cpu.prefill(tokens));
        out.push_back(cpu.step(HostTensor::i32({1, 1}, {42}), 3));
        out.push_back(cpu.step(HostTensor::i32({1, 1}, {7}), 4));
        return out;
    };
    const std::vector<HostTensor> plain = run(nullptr);
    TapSet taps({"encoder_layers[1].forward", "decoder_layers[0].self_attn.attend",
                 "decoder_layers[1].mlp.forward", "conv1d#1"});
    const std::vector<HostTensor> tapped = run(&taps);
    ASSERT_EQ(plain.size(), tapped.size());
    for (size_t i = 0; i < plain.size(); ++i) {
        ASSERT_EQ(plain[i].shape(), tapped[i].shape());
        const auto a = plain[i].f32_values();
        const auto b = tapped[i].f32_values();
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size_bytes()), 0) << "output " << i;
    }
    for (const auto& value : taps.values()) EXPECT_TRUE(value.filled) << value.name;
    // listen and encode both have the encoder's blocks; the later run wrote them last.
    EXPECT_EQ(taps.value("encoder_layers[1].forward")->refreshes, 2U);
    EXPECT_EQ(taps.value("encoder_layers[1].forward")->entry, "whisper::Model.listen");
    // The decoder's self-attention ran in the prefill and in both steps.
    EXPECT_EQ(taps.value("decoder_layers[0].self_attn.attend")->refreshes, 3U);
    EXPECT_EQ(taps.value("decoder_layers[0].self_attn.attend")->position, 4);
}

TEST_F(TapsOnCpu, TapInsideALaterDecoderStepMatchesTheFullPass) {
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 1);
    const std::vector<int32_t> ids = {3, 99, 250, 11, 400, 77};
    CpuWhisper cpu(*checkpoint_);
    const auto step_edges = cpu.tappable_edges("step");
    const TappableEdge& block =
        earshot::backend::require_edge(step_edges, "decoder_layers[1].encoder_attn.attend", "step");
    const HostTensor audio = cpu.listen(mel);
    cpu.prefill(HostTensor::i32({1, 3}, {ids[0], ids[1], ids[2]}));
    TapSet taps({block.name});
    cpu.set_taps(&taps);
    for (int32_t pos = 3; pos < 6; ++pos) {
        cpu.step(HostTensor::i32({1, 1}, {ids[static_cast<size_t>(pos)]}), pos);
    }
    const auto* got = taps.value(block.name);
    ASSERT_TRUE(got->filled);
    EXPECT_EQ(got->position, 5);
    EXPECT_EQ(got->refreshes, 3U);
    ASSERT_EQ(got->tensor.shape(), (std::vector<int64_t>{1, 1, 64}));

    // The stateless full pass over the same six tokens, tapped at the same block: its last row.
    CpuWhisper full(*checkpoint_);
    const auto decode_edges = full.tappable_edges("decode", 6);
    // Named the same there: a call path leaves out the layer's function (`step`, `forward`).
    const TappableEdge* same = earshot::backend::find_edge(decode_edges, block.name);
    ASSERT_NE(same, nullptr) << "decode has no " << block.name;
    TapSet whole({same->name});
    full.set_taps(&whole);
    full.decode(HostTensor::i32({1, 6}, std::vector<int32_t>(ids)), audio);
    const HostTensor& rows = whole.value(same->name)->tensor;  // [1, 6, D]
    ASSERT_EQ(rows.shape(), (std::vector<int64_t>{1, 6, 64}));
    const auto last = rows.f32_values().subspan(5 * 64, 64);
    EXPECT_LE(relative_error(got->tensor.f32_values(), last), kCacheTolerance);
}

// The decoder model skips the encoder for the window it heard last; attaching taps forgets that
// window, so that a listen of the same window runs again and fills them (before, the taps stayed
// empty until another window came).
TEST_F(TapsOnCpu, AttachingTapsListensToTheRememberedWindowAgain) {
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 3);
    const auto model = earshot::runtime::make_cpu_decoder_model(*checkpoint_);
    model->set_profiling(true);
    model->listen(mel);
    EXPECT_FALSE(model->take_step_timings().empty());
    model->listen(mel);  // the same window, untapped: remembered, no encoder run
    EXPECT_TRUE(model->take_step_timings().empty());

    TapSet taps({"encoder_layers[1].forward"});
    model->set_taps(&taps);
    model->listen(mel);
    model->set_taps(nullptr);
    EXPECT_FALSE(model->take_step_timings().empty());
    const auto* tapped = taps.value("encoder_layers[1].forward");
    ASSERT_TRUE(tapped->filled);
    EXPECT_EQ(tapped->refreshes, 1U);
    // The values the backend taps on its own for the same window.
    CpuWhisper cpu(*checkpoint_);
    TapSet direct({"encoder_layers[1].forward"});
    cpu.set_taps(&direct);
    cpu.listen(mel);
    const auto want = direct.value("encoder_layers[1].forward")->tensor.f32_values();
    const auto got = tapped->tensor.f32_values();
    ASSERT_EQ(got.size(), want.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
    // Detached again, the window just heard is remembered once more.
    model->listen(mel);
    EXPECT_TRUE(model->take_step_timings().empty());
}

}  // namespace
