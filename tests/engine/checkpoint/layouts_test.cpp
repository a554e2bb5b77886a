// Real Whisper layouts beyond the symmetric ones: distil-whisper (32 encoder layers, 2 decoder
// layers) and large-v3-turbo (32 + 4, 128 mel bins, 51866 tokens), as small random checkpoints
// written by the project's own tools. Each binds, shows its generics the way `earshot inspect`
// does, and runs: listen, prefill and one cached step, as a Hugging Face folder and as a ggml
// file with quantized linear weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/model/whisper_model.h"
#include "earshot/engine/program/inspect.h"
#include "ggml_writer.h"
#include "temp_dir.h"
#include "value_difference.h"

namespace earshot {
namespace {

namespace fs = std::filesystem;
using backend::HostTensor;

struct Layout {
    std::string name;
    int64_t mels;
    int64_t encoder_layers;
    int64_t decoder_layers;
    int64_t vocab;
};

void PrintTo(const Layout& layout, std::ostream* os) { *os << layout.name; }

// distil-large-v3 (config.json: encoder_layers 32, decoder_layers 2, num_mel_bins 128) and
// whisper-large-v3-turbo (32 + 4, 128 mels); distil-small.en (12 + 2, 80 mels, 51864 tokens).
// Width, heads and frames are shrunk (D 64, 2 heads, 20 frames) so that the test runs in a
// moment; the layer counts, mels and vocabulary are the real ones.
const std::vector<Layout> layouts = {
    {"distil_large_v3", 128, 32, 2, 51866},
    {"large_v3_turbo", 128, 32, 4, 51866},
    {"distil_small_en", 80, 12, 2, 51864},
};

model::RandomCheckpointOptions options_of(const Layout& layout) {
    model::RandomCheckpointOptions o{.mels = layout.mels,
                                     .d = 64,
                                     .heads = 2,
                                     .enc_layers = layout.encoder_layers,
                                     .dec_layers = layout.decoder_layers,
                                     .vocab = layout.vocab,
                                     .frames = 20,
                                     .max_tokens = 16,
                                     .dtype = "f16",
                                     .seed = 11,
                                     .projection_std = 0.1};
    return o;
}

std::string generic_of(const model::WhisperBinding& binding, const std::string& name) {
    for (const auto& [generic, value] : binding.generics) {
        if (generic == name) return value;
    }
    return "(absent)";
}

double max_abs_difference(std::span<const float> a, std::span<const float> b) {
    return test::max_difference(a, b);
}

// Listens to a random mel, then checks prefill([sot, a, b]) against prefill([sot, a]) followed by
// one cached step(b): the same logits, finite and not flat. Returns the step's logits.
std::vector<float> run_one_step(const model::WhisperCheckpoint& checkpoint, const Layout& layout) {
    backend::CpuWhisper cpu(checkpoint);
    std::mt19937_64 engine(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> mel(static_cast<std::size_t>(layout.mels * 20));  // [1, Mels, Frames]
    for (auto& v : mel) v = normal(engine);
    const HostTensor audio = cpu.listen(HostTensor::f32({1, layout.mels, 20}, mel));
    EXPECT_EQ(audio.shape(), (std::vector<int64_t>{1, 10, 64}));  // [B, Frames / 2, D]

    const int32_t sot = static_cast<int32_t>(layout.vocab - 1);
    const HostTensor whole = cpu.prefill(HostTensor::i32({1, 3}, {sot, 400, 7000}));
    cpu.prefill(HostTensor::i32({1, 2}, {sot, 400}));
    const HostTensor stepped = cpu.step(HostTensor::i32({1, 1}, {7000}), 2);
    EXPECT_EQ(stepped.shape(), (std::vector<int64_t>{1, layout.vocab}));
    const auto want = whole.f32_values();
    const auto got = stepped.f32_values();
    EXPECT_LT(max_abs_difference(got, want), 1e-3) << layout.name;
    EXPECT_TRUE(std::ranges::all_of(got, [](float v) { return std::isfinite(v); }));
    const auto [low, high] = std::ranges::minmax(got);
    EXPECT_GT(high - low, 0.1f) << "flat logits";
    return {got.begin(), got.end()};
}

class CheckpointLayouts : public testing::TestWithParam<Layout> {};

TEST_P(CheckpointLayouts, BindsShowsItsGenericsAndRunsOneStep) {
    const Layout& layout = GetParam();
    const test::TempDir dir("earshot-layouts");
    write_random_checkpoint(dir.path() / "hf", options_of(layout));
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(dir.path() / "hf");

    const model::WhisperBinding& binding = hf.binding;
    EXPECT_EQ(generic_of(binding, "EncoderLayers"), std::to_string(layout.encoder_layers));
    EXPECT_EQ(generic_of(binding, "DecoderLayers"), std::to_string(layout.decoder_layers));
    EXPECT_EQ(generic_of(binding, "Mels"), std::to_string(layout.mels));
    EXPECT_EQ(generic_of(binding, "Vocab"), std::to_string(layout.vocab));
    const std::string report = program::inspect_report(model::WhisperModel::declaration(),
                                                       model::whisper_blocks(), binding.generics);
    EXPECT_NE(report.find("EncoderLayers\t" + std::to_string(layout.encoder_layers) + "\n"),
              std::string::npos);
    EXPECT_NE(report.find("DecoderLayers\t" + std::to_string(layout.decoder_layers) + "\n"),
              std::string::npos);
    EXPECT_NE(report.find("Mels\t" + std::to_string(layout.mels) + "\n"), std::string::npos);
    // Every decoder layer is bound and no more: the last one and not the next.
    const std::string last = "decoder_layers." + std::to_string(layout.decoder_layers - 1);
    const std::string next = "decoder_layers." + std::to_string(layout.decoder_layers);
    EXPECT_NE(hf.weights.find(last + ".self_attn.q_proj.weight"), nullptr);
    EXPECT_EQ(hf.weights.find(next + ".self_attn.q_proj.weight"), nullptr);
    EXPECT_NE(hf.weights.find("encoder_layers." + std::to_string(layout.encoder_layers - 1) +
                              ".mlp.fc1.weight"),
              nullptr)
        << "encoder layers";
    const std::vector<float> hf_logits = run_one_step(hf, layout);

    // The same checkpoint as a whisper.cpp file with q8_0 linear weights: the header's layer
    // counts and mels bind the same program, and it runs close to the f16 original.
    const test::GgmlContents ggml =
        test::ggml_twin(hf.weights, binding.config, checkpoint::GgmlType::q8_0);
    test::write_ggml_file(dir.path() / "model-q8_0.bin", ggml);
    const model::WhisperCheckpoint q8 =
        model::load_whisper_checkpoint(dir.path() / "model-q8_0.bin");
    EXPECT_EQ(q8.binding.values.dims, binding.values.dims);
    EXPECT_EQ(q8.weights.quantized_as(last + ".encoder_attn.k_proj.weight"), "q8_0");
    const std::vector<float> q8_logits = run_one_step(q8, layout);
    double scale = 0.0;
    for (const float v : hf_logits) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    EXPECT_LT(max_abs_difference(q8_logits, hf_logits) / scale, 0.05) << layout.name;
}

std::string layout_name(const testing::TestParamInfo<Layout>& param) { return param.param.name; }

INSTANTIATE_TEST_SUITE_P(RealLayouts, CheckpointLayouts, testing::ValuesIn(layouts), layout_name);

}  // namespace
}  // namespace earshot
