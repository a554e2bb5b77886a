// quantize_checkpoint_to_ggml on the embedded micro model: the file whisper.cpp would load (every
// tensor in whisper.cpp's type), read back by Earshot's ggml reader; the q8_0 file's transcript of
// a held-out sentence equals the f32 twin's and its logits stay within the round-trip bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/ggml_quantize.h"
#include "earshot/engine/convert/ggml_quantize_checkpoint.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "micro_model.h"
#include "npz_reader.h"
#include "temp_dir.h"

namespace earshot {
namespace {

namespace fs = std::filesystem;
using checkpoint::GgmlType;

// Earshot computes its own mel filters, so the block's values do not matter to what is read back
// here; the CLI passes the real Slaney filters (audio/mel_filterbank.h).
std::vector<float> zero_filters(int mels) {
    return std::vector<float>(static_cast<std::size_t>(mels) * 201u, 0.0f);
}

fs::path quantized_micro(const fs::path& dir, GgmlType type, std::size_t* progress_calls) {
    const fs::path path = dir / (std::string(checkpoint::ggml_type_name(type)) + ".bin");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    std::size_t calls = 0;
    convert::quantize_checkpoint_to_ggml(test::micro_model_dir(), type, zero_filters, out,
                                         [&](const convert::GgmlQuantizeProgress& p) {
                                             EXPECT_EQ(p.tensor_index, calls);
                                             ++calls;
                                         });
    out.close();
    if (progress_calls != nullptr) *progress_calls = calls;
    return path;
}

// The held-out sentence's window: [Mels, Frames].
backend::HostTensor parity_mel() {
    const fs::path fixture = fs::path(EARSHOT_TEST_GOLDEN_DIR) / "micro" / "parity.npz";
    const std::map<std::string, test::NpyArray> npz = test::read_npz(fixture);
    const test::NpyArray& mel = npz.at("mel");
    return backend::HostTensor::f32({mel.shape[0], mel.shape[1]}, mel.as_f32());
}

std::string transcript_of(const model::WhisperCheckpoint& checkpoint) {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(
        test::micro_model_dir(), checkpoint.binding.values.dims.at("Vocab"));
    auto model = runtime::make_cpu_decoder_model(checkpoint);
    const backend::HostTensor mel = parity_mel();
    decoding::TranscribeOptions options;
    options.decoding.beam_size = 1;
    options.decoding.temperatures = {0.0};
    return decoding::transcribe(*model, tok, mel, mel.shape()[1], options, nullptr, nullptr).text;
}

// The logits of tokens [1, 2, 3] after listening to the held-out window: [1, Vocab].
std::vector<float> logits_of(const model::WhisperCheckpoint& checkpoint) {
    backend::CpuWhisper cpu(checkpoint);
    const backend::HostTensor mel = parity_mel();
    const auto values = mel.f32_values();
    cpu.listen(backend::HostTensor::f32({1, mel.shape()[0], mel.shape()[1]},
                                        std::vector<float>(values.begin(), values.end())));
    const backend::HostTensor logits = cpu.prefill(backend::HostTensor::i32({1, 3}, {1, 2, 3}));
    const auto out = logits.f32_values();
    return {out.begin(), out.end()};
}

TEST(GgmlQuantizeMicroModel, EveryTensorInWhisperCppsType) {
    const test::TempDir dir("earshot-quantize-micro");
    std::size_t calls = 0;
    const fs::path path = quantized_micro(dir.path(), GgmlType::q5_0, &calls);
    const checkpoint::GgmlFile f = checkpoint::read_ggml_file(path);
    EXPECT_EQ(f.hparams.ftype, 2008);
    EXPECT_EQ(f.hparams.n_audio_ctx, 300);
    EXPECT_EQ(f.mel_count, 80);
    EXPECT_EQ(f.mel_bins, 201);
    ASSERT_EQ(f.vocab.size(), 50256u);  // the base ranks, as in whisper.cpp's tiny.en file
    EXPECT_EQ(f.vocab.at(0), "!");
    EXPECT_EQ(f.vocab.at(50255), " gazed");  // raw bytes, not vocab.json's "\u0120gazed"
    EXPECT_EQ(calls, f.tensors.size());
    std::map<std::string, GgmlType> types;
    for (const auto& t : f.tensors) types[t.name] = t.ttype;
    EXPECT_EQ(types.at("decoder.token_embedding.weight"), GgmlType::q5_0);
    EXPECT_EQ(types.at("encoder.blocks.1.mlp.2.weight"), GgmlType::q5_0);
    EXPECT_EQ(types.at("decoder.blocks.0.cross_attn.key.weight"), GgmlType::q5_0);
    EXPECT_EQ(types.at("encoder.conv1.weight"), GgmlType::f16);
    EXPECT_EQ(types.at("encoder.conv2.bias"), GgmlType::f32);
    EXPECT_EQ(types.at("encoder.positional_embedding"), GgmlType::f32);
    EXPECT_EQ(types.at("decoder.positional_embedding"), GgmlType::f32);
    EXPECT_EQ(types.at("decoder.ln.bias"), GgmlType::f32);
    EXPECT_EQ(types.count("proj_out.weight"), 0u);
    int quantized = 0;
    for (const auto& [name, type] : types) quantized += type == GgmlType::q5_0 ? 1 : 0;
    EXPECT_EQ(quantized, 1 + 2 * 6 + 2 * 10);  // token embedding; 6 / 10 per layer
    for (const auto& t : f.tensors) {
        if (t.name == "encoder.conv1.bias") {
            EXPECT_EQ(t.ne, (std::vector<int64_t>{1, 64}));
        }
    }
}

TEST(GgmlQuantizeMicroModel, Q8_0KeepsTheTranscriptAndLogitsWithinTheBound) {
    const test::TempDir dir("earshot-quantize-micro");
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(test::micro_model_dir());
    const model::WhisperCheckpoint f32 =
        model::load_whisper_checkpoint(quantized_micro(dir.path(), GgmlType::f32, nullptr));
    const model::WhisperCheckpoint q8 =
        model::load_whisper_checkpoint(quantized_micro(dir.path(), GgmlType::q8_0, nullptr));
    EXPECT_EQ(q8.weights.quantized_as("decoder_layers.1.mlp.fc2.weight"), "q8_0");

    const std::string want = transcript_of(f32);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(want, transcript_of(hf));
    EXPECT_EQ(transcript_of(q8), want);

    const std::vector<float> f32_logits = logits_of(f32);
    const std::vector<float> q8_logits = logits_of(q8);
    ASSERT_EQ(q8_logits.size(), f32_logits.size());
    double squared_error = 0.0;
    double squared_want = 0.0;
    for (std::size_t i = 0; i < f32_logits.size(); ++i) {
        const double difference = double{q8_logits[i]} - double{f32_logits[i]};
        squared_error += difference * difference;
        squared_want += double{f32_logits[i]} * double{f32_logits[i]};
    }
    ASSERT_GT(squared_want, 0.0);
    const double relative = std::sqrt(squared_error / squared_want);
    const double bound = checkpoint::ggml_quantize_error_bound(GgmlType::q8_0);
    std::cout << "[          ] q8_0 micro: rms logit error / rms logit = " << relative << " ("
              << relative / bound << " x the format's bound)\n";
    // The round-trip test's limit (checkpoint/ggml_quant_roundtrip_test.cpp): 5 x the bound.
    EXPECT_LT(relative, 5.0 * bound);
    EXPECT_GT(relative, 0.0);  // the quantized weights are the ones run
}

class GgmlQuantizeMicroTypes : public testing::TestWithParam<GgmlType> {};

// Every file type loads; its size is printed (f32 > f16 > q8_0 > q5_1 > q5_0 > q4_1 > q4_0).
TEST_P(GgmlQuantizeMicroTypes, LoadsAndShrinks) {
    const test::TempDir dir("earshot-quantize-micro");
    const fs::path path = quantized_micro(dir.path(), GetParam(), nullptr);
    const model::WhisperCheckpoint loaded = model::load_whisper_checkpoint(path);
    EXPECT_EQ(loaded.binding.values.dims.at("Vocab"), 51864);
    std::cout << "[          ] micro " << checkpoint::ggml_type_name(GetParam()) << ": "
              << fs::file_size(path) << " bytes\n";
}

INSTANTIATE_TEST_SUITE_P(Types, GgmlQuantizeMicroTypes,
                         testing::Values(GgmlType::f32, GgmlType::f16, GgmlType::q8_0,
                                         GgmlType::q5_1, GgmlType::q5_0, GgmlType::q4_1,
                                         GgmlType::q4_0),
                         [](const testing::TestParamInfo<GgmlType>& param_info) {
                             return std::string(checkpoint::ggml_type_name(param_info.param));
                         });

// whisper.cpp's test container (mel filters and vocabulary, no tensors): a q8_0 copy is the same
// bytes but for the header's ftype (1 -> 2007), so a ggml input's filters and vocabulary are
// copied as they are.
TEST(GgmlQuantizeMicroModel, AGgmlInputKeepsItsFiltersAndVocabulary) {
    const fs::path input =
        fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "for-tests-ggml-tiny.bin";
    if (!fs::exists(input)) GTEST_SKIP() << input << " is not there";
    const test::TempDir dir("earshot-quantize-micro");
    const fs::path output = dir.path() / "tiny-q8_0.bin";
    {
        std::ofstream out(output, std::ios::binary | std::ios::trunc);
        convert::quantize_checkpoint_to_ggml(input, GgmlType::q8_0, zero_filters, out, {});
    }
    const auto bytes_of = [](const fs::path& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    std::string want = bytes_of(input);
    const std::string got = bytes_of(output);
    ASSERT_EQ(got.size(), want.size());
    const int32_t q8_0_ftype = 2007;
    std::memcpy(want.data() + 4 + 10 * 4, &q8_0_ftype, sizeof(q8_0_ftype));  // magic, 10 i32
    EXPECT_TRUE(got == want);
}

TEST(GgmlQuantizeMicroModel, FileTypeNames) {
    EXPECT_EQ(convert::ggml_file_type_from_name("q5_1"), GgmlType::q5_1);
    EXPECT_EQ(convert::ggml_file_type_from_name("q6_k"), std::nullopt);
    EXPECT_EQ(convert::ggml_file_type_names(), "q8_0, q5_1, q5_0, q4_1, q4_0, f16, f32");
}

}  // namespace
}  // namespace earshot
