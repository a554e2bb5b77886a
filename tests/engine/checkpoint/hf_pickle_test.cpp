// Hugging Face folders whose weights are only PyTorch pickles: refused when the config is read and
// when the weights are, with why (no code from a model file is run) and how to get safetensors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "checkpoint_errors.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/checkpoint/whisper_config.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "temp_dir.h"

namespace earshot::checkpoint {
namespace {

namespace fs = std::filesystem;
using earshot::test::error_of;

// The small random checkpoint every test here writes.
const model::RandomCheckpointOptions kSmall{.d = 64,
                                            .heads = 2,
                                            .enc_layers = 1,
                                            .dec_layers = 1,
                                            .vocab = 100,
                                            .frames = 20,
                                            .max_tokens = 8};

// A small random HF folder whose model.safetensors is replaced by `pickle_name` (a few bytes
// that are a pickle's opening, never read).
fs::path pickle_folder(const fs::path& dir, const std::string& pickle_name) {
    model::write_random_checkpoint(dir, kSmall);
    fs::remove(dir / "model.safetensors");
    std::ofstream(dir / pickle_name, std::ios::binary) << "\x80\x02}q\x00.";
    return dir;
}

void expect_pickle_message(const std::string& message, const std::string& file) {
    EXPECT_NE(message.find(file + ": the folder's weights are a PyTorch pickle, which Earshot "
                                  "does not read"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("Earshot never runs code from a model file"), std::string::npos);
    EXPECT_NE(message.find("download model.safetensors"), std::string::npos);
    EXPECT_NE(message.find("save_pretrained(new_folder, safe_serialization=True)"),
              std::string::npos);
}

TEST(HfPickleFolder, ConfigAndWeightsAreRefusedWithTheWayToSafetensors) {
    const test::TempDir dir("earshot-pickle");
    const fs::path folder = pickle_folder(dir.path() / "whisper-small", "pytorch_model.bin");
    expect_pickle_message(error_of([&] { read_whisper_config(folder); }), "pytorch_model.bin");

    WhisperConfig config;
    config.format = CheckpointFormat::hf_directory;
    config.source = folder;
    expect_pickle_message(error_of([&] { read_weights(config); }), "pytorch_model.bin");
}

TEST(HfPickleFolder, ShardedPickleIsRefusedToo) {
    const test::TempDir dir("earshot-pickle");
    const fs::path folder = pickle_folder(dir.path() / "large", "pytorch_model.bin.index.json");
    expect_pickle_message(error_of([&] { read_whisper_config(folder); }),
                          "pytorch_model.bin.index.json");
}

TEST(HfPickleFolder, SafetensorsBesideAPickleIsRead) {
    // Hub folders often hold both; the safetensors copy is what is read and the pickle ignored.
    const test::TempDir dir("earshot-pickle");
    model::write_random_checkpoint(dir.path() / "both", kSmall);
    std::ofstream(dir.path() / "both" / "pytorch_model.bin", std::ios::binary) << "\x80\x02.";
    const WhisperConfig config = read_whisper_config(dir.path() / "both");
    EXPECT_EQ(config.n_audio_layer, 1);
    const WeightSet weights = read_weights(config);
    EXPECT_NE(weights.find("token_embedding"), nullptr);
}

TEST(HfPickleFolder, FolderWithoutWeightsStillSaysWhatIsMissing) {
    const test::TempDir dir("earshot-pickle");
    const fs::path folder = pickle_folder(dir.path() / "none", "pytorch_model.bin");
    fs::remove(folder / "pytorch_model.bin");
    WhisperConfig config = read_whisper_config(folder);
    const std::string message = error_of([&] { read_weights(config); });
    EXPECT_NE(message.find("no model.safetensors or model.safetensors.index.json"),
              std::string::npos)
        << message;
}

}  // namespace
}  // namespace earshot::checkpoint
