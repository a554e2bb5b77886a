// Taps inside loops, through the app's code on the embedded micro model: the graph's edge for an
// encoder layer's output carries every layer's tap name (the tab's layer picker), and the name of
// layer k taps layer k: run_taps with it gives the CPU backend's own tap of that layer (and not
// another layer's values), even right after the model listened to the same window untapped.
#include <gtest/gtest.h>

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "gui/inspector/inspector_data.h"
#include "gui/inspector/tap_values.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using backend::HostTensor;

const fs::path kMicro = EARSHOT_MICRO_MODEL_DIR;

// A window with structure in both time and frequency.
HostTensor patterned_mel(int64_t mels, int64_t frames) {
    std::vector<float> values(static_cast<size_t>(mels * frames));
    for (int64_t m = 0; m < mels; ++m) {
        for (int64_t f = 0; f < frames; ++f) {
            values[static_cast<size_t>(m * frames + f)] =
                0.5F * std::sin(0.013F * static_cast<float>(f * (m + 1))) +
                0.1F * static_cast<float>(m % 7) - 0.3F;
        }
    }
    return HostTensor::f32({1, mels, frames}, std::move(values));
}

// The CPU backend's own tap of `name` on `mel` (listen), on its own load of the checkpoint.
std::vector<float> backend_tap(const model::WhisperCheckpoint& checkpoint, const std::string& name,
                               const HostTensor& mel) {
    backend::CpuWhisper cpu(checkpoint);
    backend::TapSet taps({name});
    cpu.set_taps(&taps);
    cpu.listen(mel);
    const auto* value = taps.value(name);
    EXPECT_TRUE(value->filled) << name;
    const auto v = value->tensor.f32_values();
    return {v.begin(), v.end()};
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0.0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
    }
    return worst;
}

TEST(TapLayers, ALayersNameInTheGraphTapsThatLayer) {
    if (!fs::exists(kMicro / "model.safetensors")) GTEST_SKIP() << "no micro model at " << kMicro;
    const auto loaded = app::load_model(kMicro, {}, backend::BackendChoice::cpu);
    const int64_t layers = loaded->checkpoint.binding.values.dims.at("EncoderLayers");
    ASSERT_GE(layers, 2);

    // The encode graph drawn at one level: the edge out of the loop body's last `+` names every
    // layer.
    const ui::GraphProvider provider = app::graph_provider(loaded->checkpoint.binding);
    ui::GraphRequest request;
    request.entry = QStringLiteral("encode");
    const ui::GraphData graph = provider(request);
    QStringList iterations;
    for (const ui::GraphEdge& edge : graph.edges) {
        if (edge.tapIterations.contains(QStringLiteral("encoder_layers[1].forward"))) {
            iterations = edge.tapIterations;
            EXPECT_EQ(edge.tap, QStringLiteral("encoder_layers[0].forward"));
        }
    }
    ASSERT_EQ(iterations.size(), layers);
    for (int64_t k = 0; k < layers; ++k) {
        EXPECT_EQ(iterations[static_cast<int>(k)],
                  QStringLiteral("encoder_layers[%1].forward").arg(k));
    }

    const HostTensor mel = patterned_mel(loaded->model->mels(), loaded->model->frames());
    // The model heard this window untapped just before (what the Files page's map leaves).
    loaded->model->listen(mel);
    const std::vector<int32_t> prompt{loaded->tokenizer.specials().sot};
    const model::WhisperCheckpoint reference = model::load_whisper_checkpoint(kMicro);
    std::vector<std::vector<float>> per_layer;
    for (int64_t k = 0; k < layers; ++k) {
        const std::string name = iterations[static_cast<int>(k)].toStdString();
        const QList<ui::TapValue> got =
            app::run_taps(*loaded, {name}, mel, prompt, QStringLiteral("test window"));
        ASSERT_EQ(got.size(), 1);
        ASSERT_TRUE(got[0].error.isEmpty()) << got[0].error.toStdString();
        const std::vector<float> want = backend_tap(reference, name, mel);
        EXPECT_EQ(max_difference(got[0].values, want), 0.0) << name;
        per_layer.push_back(got[0].values);
    }
    // Each layer's values are its own: consecutive layers differ.
    for (size_t k = 1; k < per_layer.size(); ++k) {
        EXPECT_GT(max_difference(per_layer[k], per_layer[k - 1]), 1e-3) << "layer " << k;
    }
}

}  // namespace
}  // namespace earshot::test
