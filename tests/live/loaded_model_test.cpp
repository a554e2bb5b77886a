// load_model reads the checkpoint's generation_config.json, and apply_model_defaults hands its
// suppress list to decoding: with the list the checkpoint gives, without it Whisper's "-1".
#include "earshot/app/loaded_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/errors.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// A copy of the embedded micro model's files with `generation` as its generation_config.json
// (nothing when empty).
fs::path micro_copy(const TempDir& dir, const std::string& generation) {
    const fs::path source(EARSHOT_MICRO_MODEL_DIR);
    for (const char* name : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
        fs::copy_file(source / name, dir.path() / name);
    }
    if (!generation.empty()) {
        std::ofstream(dir.path() / "generation_config.json") << generation;
    }
    return dir.path();
}

TEST(LoadedModel, TheCheckpointsSuppressListReplacesTheDefault) {
    const TempDir dir;
    const auto loaded = app::load_model(micro_copy(dir, R"({"suppress_tokens": [220, 50361, 7]})"));
    ASSERT_TRUE(loaded->generation.suppress_tokens.has_value());
    decoding::DecodingOptions options;
    EXPECT_EQ(options.suppress_tokens, std::vector<int32_t>{-1});
    app::apply_model_defaults(*loaded, options);
    EXPECT_EQ(options.suppress_tokens, (std::vector<int32_t>{220, 50361, 7}));
}

TEST(LoadedModel, WithoutGenerationConfigDecodingKeepsTheNonSpeechDefault) {
    const TempDir dir;
    const auto loaded = app::load_model(micro_copy(dir, ""));
    EXPECT_FALSE(loaded->generation.suppress_tokens.has_value());
    decoding::DecodingOptions options;
    app::apply_model_defaults(*loaded, options);
    EXPECT_EQ(options.suppress_tokens, std::vector<int32_t>{-1});
}

TEST(LoadedModel, ABadSuppressListIsALoadError) {
    const TempDir dir;
    EXPECT_THROW(app::load_model(micro_copy(dir, R"({"suppress_tokens": [51864]})")),
                 checkpoint::CheckpointError);
}

}  // namespace
}  // namespace earshot::test
