// load_model reads the checkpoint's generation_config.json, and apply_model_defaults hands its
// suppress list to decoding: with the list the checkpoint gives, without it Whisper's "-1". It runs
// the model on the backend asked for: auto says why it fell back to the CPU, cuda throws why not.
#include "earshot/core/loaded_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cuda_test_device.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/backend/cuda_devices.h"
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

// A folder with only config.json says at once what it lacks, the weights first; before, it asked
// for a vocabulary and, given one, then said there were no weights.
TEST(LoadedModel, AFolderSaysEverythingItLacksWeightsFirst) {
    const TempDir dir;
    fs::copy_file(fs::path(EARSHOT_MICRO_MODEL_DIR) / "config.json", dir.path() / "config.json");
    try {
        (void)app::load_model(dir.path());
        FAIL() << "a folder with only config.json loaded";
    } catch (const checkpoint::CheckpointError& error) {
        const std::string what = error.what();
        const size_t weights = what.find("the weights (model.safetensors");
        const size_t vocabulary = what.find("the vocabulary (tokenizer.json");
        EXPECT_NE(weights, std::string::npos) << what;
        EXPECT_NE(vocabulary, std::string::npos) << what;
        EXPECT_LT(weights, vocabulary) << what;
    }
    // With a vocabulary given, only the weights are missing.
    try {
        (void)app::load_model(dir.path(), fs::path(EARSHOT_MICRO_MODEL_DIR));
        FAIL() << "a folder without weights loaded";
    } catch (const checkpoint::CheckpointError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("lacks the weights"), std::string::npos) << what;
        EXPECT_EQ(what.find("vocabulary"), std::string::npos) << what;
    }
}

TEST(LoadedModel, RunsOnTheBackendAskedFor) {
    const TempDir dir;
    const fs::path model = micro_copy(dir, "");
    const auto cpu = app::load_model(model, {}, backend::BackendChoice::cpu);
    EXPECT_EQ(cpu->model->backend_name(), "CPU");
    EXPECT_TRUE(cpu->backend_fallback.empty());

    const auto automatic = app::load_model(model);  // auto is the default
    const std::optional<backend::CudaError> why = cuda_unavailable_error();
    if (!why) {
        EXPECT_TRUE(automatic->model->backend_name().starts_with("CUDA ("))
            << automatic->model->backend_name();
        EXPECT_TRUE(automatic->backend_fallback.empty()) << automatic->backend_fallback;
        EXPECT_TRUE(app::load_model(model, {}, backend::BackendChoice::cuda)
                        ->model->backend_name()
                        .starts_with("CUDA ("));
        return;
    }
    EXPECT_EQ(automatic->model->backend_name(), "CPU");
    EXPECT_EQ(automatic->backend_fallback,
              "CUDA is not available (" + std::string(backend::cuda_error_kind_name(why->kind())) +
                  ": " + why->what() + "); running on the CPU");
    try {
        (void)app::load_model(model, {}, backend::BackendChoice::cuda);
        FAIL() << "--backend cuda loaded without CUDA";
    } catch (const backend::CudaError& error) {
        EXPECT_EQ(error.kind(), why->kind());
        EXPECT_STREQ(error.what(), why->what());
    }
}

}  // namespace
}  // namespace earshot::test
