// Binding checkpoints to the program's generics, block constraints, and the `inspect` report
// against the golden large-v3 text (and the seed it was taken from, when present).
#include "earshot/engine/model/whisper_binding.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "earshot/engine/checkpoint/whisper_config.h"
#include "earshot/engine/model/whisper_model.h"
#include "large_v3_config.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::checkpoint::WhisperConfig;
using earshot::model::bind_whisper;
using earshot::model::BindingError;
using earshot::model::WhisperModel;

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

WhisperConfig large_v3() { return earshot::test::large_v3_config(); }

std::string report(const WhisperConfig& config) {
    auto binding = bind_whisper(config);
    return earshot::program::inspect_report(WhisperModel::declaration(),
                                            earshot::model::whisper_blocks(), binding.generics);
}

std::string binding_error(const WhisperConfig& config) {
    try {
        (void)bind_whisper(config);
    } catch (const BindingError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Inspect, LargeV3MatchesTheGoldenFile) {
    std::string golden = read_text(fs::path(EARSHOT_TEST_GOLDEN_DIR) / "inspect_large_v3.txt");
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(report(large_v3()), golden);
}

TEST(Inspect, LargeV3MatchesTheSeedFromEntriesToTheEnd) {
    fs::path seed_dir = fs::path(EARSHOT_SHARED_DIR) / "seed";
    if (!fs::is_directory(seed_dir)) GTEST_SKIP() << "no seed directory at " << seed_dir;
    int compared = 0;
    for (const auto& file : fs::directory_iterator(seed_dir)) {
        std::string seed = read_text(file.path());
        // The one deliberate difference: the report names earshot, not the seed's own tool.
        const std::string theirs = "as linnet inspect prints them";
        if (const auto at = seed.find(theirs); at != std::string::npos) {
            seed.replace(at, theirs.size(), "as earshot inspect prints them");
        }
        auto entries = seed.find("\nEntries\n");
        if (entries == std::string::npos) continue;
        EXPECT_EQ(report(large_v3()), seed.substr(entries + 1)) << file.path();
        ++compared;
    }
    EXPECT_GT(compared, 0);
}

TEST(Inspect, LargeV3ConfigJsonBindsTheSameGenerics) {
    earshot::test::TempDir temp("earshot-inspect-test");
    const fs::path dir = temp.path();
    std::ofstream(dir / "config.json") << R"({"num_mel_bins": 128, "max_source_positions": 1500,
        "d_model": 1280, "encoder_attention_heads": 20, "encoder_layers": 32,
        "encoder_ffn_dim": 5120, "max_target_positions": 448, "decoder_attention_heads": 20,
        "decoder_layers": 32, "decoder_ffn_dim": 5120, "vocab_size": 51866,
        "torch_dtype": "float16"})";
    auto config = earshot::checkpoint::read_whisper_config(dir);
    EXPECT_EQ(report(config), report(large_v3()));
}

TEST(Inspect, GgmlTestContainersBindTinyAndLarge) {
    fs::path assets = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets";
    if (!fs::exists(assets / "for-tests-ggml-tiny.bin")) {
        GTEST_SKIP() << "whisper test containers absent at " << assets;
    }
    auto tiny =
        bind_whisper(earshot::checkpoint::read_whisper_config(assets / "for-tests-ggml-tiny.bin"));
    using Generics = earshot::program::GenericValues;
    EXPECT_EQ(tiny.generics, (Generics{{"Mels", "80"},
                                       {"Frames", "3000"},
                                       {"D", "384"},
                                       {"Heads", "6"},
                                       {"Inner", "1536"},
                                       {"EncoderLayers", "4"},
                                       {"DecoderLayers", "4"},
                                       {"Vocab", "51865"},
                                       {"MaxTokens", "448"},
                                       {"T", "f16"}}));
    auto tiny_en = bind_whisper(
        earshot::checkpoint::read_whisper_config(assets / "for-tests-ggml-tiny.en.bin"));
    EXPECT_EQ(tiny_en.values.dims.at("Vocab"), 51864);
    auto large =
        bind_whisper(earshot::checkpoint::read_whisper_config(assets / "for-tests-ggml-large.bin"));
    EXPECT_EQ(large.values.dims.at("D"), 1280);
    EXPECT_EQ(large.values.dims.at("Heads"), 20);
    EXPECT_EQ(large.values.dims.at("Mels"), 80);
    EXPECT_EQ(large.values.dims.at("EncoderLayers"), 32);
    EXPECT_EQ(large.values.dims.at("Vocab"), 51865);
}

TEST(Binding, HeadsMustDivideTheWidth) {
    WhisperConfig c = large_v3();
    c.n_audio_state = c.n_text_state = 1000;
    c.n_audio_head = c.n_text_head = 3;
    std::string message = binding_error(c);
    EXPECT_NE(message.find("D % Heads == 0"), std::string::npos) << message;
    EXPECT_NE(message.find("D = 1000, Heads = 3"), std::string::npos) << message;
    EXPECT_NE(message.find("whisper::Attention"), std::string::npos) << message;
}

TEST(Binding, EveryNamedConstraintIsChecked) {
    WhisperConfig no_heads = large_v3();
    no_heads.n_audio_head = no_heads.n_text_head = 0;
    EXPECT_NE(binding_error(no_heads).find("Heads > 0"), std::string::npos)
        << binding_error(no_heads);
    WhisperConfig no_frames = large_v3();
    no_frames.n_audio_ctx = 0;
    EXPECT_NE(binding_error(no_frames).find("Frames > 0"), std::string::npos)
        << binding_error(no_frames);
    WhisperConfig no_tokens = large_v3();
    no_tokens.n_text_ctx = 0;
    EXPECT_NE(binding_error(no_tokens).find("`MaxTokens > 0` of whisper::Model: MaxTokens = 0"),
              std::string::npos)
        << binding_error(no_tokens);
}

TEST(Binding, EncoderAndDecoderMustShareSizes) {
    WhisperConfig c = large_v3();
    c.n_text_head = 16;
    EXPECT_NE(binding_error(c).find("number of heads (20 vs 16)"), std::string::npos)
        << binding_error(c);
}

TEST(Binding, FramesAreTwiceTheSourcePositions) {
    WhisperConfig c = large_v3();
    c.n_audio_ctx = 300;  // a 6 s window
    auto binding = bind_whisper(c);
    EXPECT_EQ(binding.values.dims.at("Frames"), 600);
    EXPECT_EQ(binding.values.dims.at("Batch"), 1);
    EXPECT_EQ(binding.values.elements.at("T"), earshot::program::DType::f16);
}

}  // namespace
