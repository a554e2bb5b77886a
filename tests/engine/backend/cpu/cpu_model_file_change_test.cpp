// A model's files truncated or replaced while the model loaded from them is in use: the CPU
// backend keeps every weight in memory of its own and the weight set unmaps the files once the
// backend is built (WeightSet::release_files, as the app's load_model does), so no mapping of a
// model file is left in the process, it never faults (SIGBUS), and it decodes the same tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/fallback.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "micro_model.h"
#include "npz_reader.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kFixture = fs::path(EARSHOT_TEST_GOLDEN_DIR) / "micro" / "parity.npz";

// The lines of /proc/self/maps that name a file under `dir`.
std::vector<std::string> mappings_under(const fs::path& dir) {
    std::ifstream maps("/proc/self/maps");
    std::vector<std::string> found;
    for (std::string line; std::getline(maps, line);) {
        if (line.find(dir.string()) != std::string::npos) found.push_back(line);
    }
    return found;
}

// Writes `text` to `path` through a temporary file renamed over it (how editors and downloads
// replace a file: the old inode goes away).
void replace_file(const fs::path& path, const std::string& text) {
    const fs::path temporary = path.string() + ".new";
    std::ofstream(temporary, std::ios::binary) << text;
    fs::rename(temporary, path);
}

TEST(ModelFileChange, TruncatedAndReplacedFilesLeaveTheLoadedModelDecodingTheSame) {
    ASSERT_TRUE(fs::exists(micro_model_dir() / "model.safetensors")) << micro_model_dir();
    ASSERT_TRUE(fs::exists(kFixture)) << kFixture;
    const TempDir dir("earshot-model-file-change");
    const fs::path copy = dir.path() / "micro";
    fs::copy(micro_model_dir(), copy, fs::copy_options::recursive);

    model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(copy);
    // The weights are read through a mapping of the file while loading.
    EXPECT_FALSE(mappings_under(copy).empty());
    const std::unique_ptr<decoding::DecoderModel> model =
        runtime::make_cpu_decoder_model(checkpoint);
    checkpoint.weights.release_files();
    EXPECT_EQ(mappings_under(copy), std::vector<std::string>{});
    EXPECT_TRUE(checkpoint.weights.files().empty());
    const tokenizer::Tokenizer tokenizer = tokenizer::Tokenizer::load(copy, model->vocab());

    const std::map<std::string, NpyArray> npz = read_npz(kFixture);
    const NpyArray& mel = npz.at("mel");  // [80, Frames]
    ASSERT_EQ(mel.shape.size(), 2U);
    const backend::HostTensor window =
        backend::HostTensor::f32({1, mel.shape[0], mel.shape[1]}, mel.as_f32());
    decoding::DecodingOptions options;
    options.language = "en";
    options.temperatures = {0.0};
    auto decode = [&] {
        std::mt19937_64 rng(0);
        return decoding::decode_with_fallback(*model, tokenizer, window, {}, {}, options, rng);
    };
    const decoding::WindowResult before = decode();
    ASSERT_GT(before.tokens.size(), 2U);

    // The weights file cut to nothing, the config and vocabulary replaced by other files.
    fs::resize_file(copy / "model.safetensors", 0);
    replace_file(copy / "config.json", "{}\n");
    replace_file(copy / "vocab.json", "{}\n");
    ASSERT_EQ(fs::file_size(copy / "model.safetensors"), 0U);

    const decoding::WindowResult after = decode();
    EXPECT_EQ(after.tokens, before.tokens);
    EXPECT_EQ(after.text, before.text);
    EXPECT_EQ(after.avg_logprob, before.avg_logprob);
}

}  // namespace
}  // namespace earshot::test
