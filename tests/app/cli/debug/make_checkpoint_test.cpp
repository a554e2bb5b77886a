// `earshot debug make-checkpoint` through the real executable: it writes a loadable checkpoint
// identical to write_random_checkpoint's, and refuses a non-empty directory and unbindable shapes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "checkpoint_files.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "run_process.h"
#include "small_checkpoint.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const std::string small_shape =
    " --mels 20 --d 64 --heads 4 --enc-layers 2 --dec-layers 2 --vocab 500 --frames 200"
    " --max-tokens 32 --inner 96 --projection-std 0.3";

TEST(MakeCheckpoint, WritesWhatTheLibraryWritesAndItLoads) {
    const TempDir dir("earshot-make-checkpoint");
    const fs::path out = dir.path() / "ck";
    const ProcessResult result =
        run_earshot("debug make-checkpoint --out " + shell_quote(out.string()) + small_shape +
                    " --dtype bf16 --seed 7");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("model.safetensors"), std::string::npos) << result.out;

    const model::WhisperCheckpoint ck = model::load_whisper_checkpoint(out);
    EXPECT_EQ(ck.binding.values.dims.at("Inner"), 96);
    EXPECT_EQ(ck.binding.values.dims.at("Vocab"), 500);
    EXPECT_EQ(ck.binding.values.dims.at("Frames"), 200);
    EXPECT_EQ(program::dtype_name(ck.binding.values.elements.at("T")), "bf16");
    EXPECT_EQ(ck.weights.weights().size(), 89u);

    model::RandomCheckpointOptions options = small_checkpoint_options();
    options.mels = 20;
    options.vocab = 500;
    options.frames = 200;
    options.max_tokens = 32;
    options.inner = 96;
    options.projection_std = 0.3;
    options.dtype = "bf16";
    options.seed = 7;
    model::write_random_checkpoint(dir.path() / "library", options);
    EXPECT_EQ(read_file_bytes(out / "model.safetensors"),
              read_file_bytes(dir.path() / "library" / "model.safetensors"));
    EXPECT_EQ(read_file_bytes(out / "config.json"),
              read_file_bytes(dir.path() / "library" / "config.json"));
}

TEST(MakeCheckpoint, RefusesANonEmptyDirectory) {
    const TempDir dir("earshot-make-checkpoint");
    write_file_bytes(dir.path() / "keep.txt", {'x'});
    const ProcessResult result = run_earshot("debug make-checkpoint --out " +
                                             shell_quote(dir.path().string()) + small_shape);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("is not an empty directory; refusing to overwrite it"),
              std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(dir.path() / "model.safetensors"));
    EXPECT_EQ(read_file_bytes(dir.path() / "keep.txt"), std::vector<char>{'x'});
}

TEST(MakeCheckpoint, RefusesShapesTheProgramCannotBind) {
    const TempDir dir("earshot-make-checkpoint");
    const ProcessResult heads =
        run_earshot("debug make-checkpoint --out " + shell_quote((dir.path() / "a").string()) +
                    " --d 64 --heads 5");
    EXPECT_EQ(heads.exit_code, 2);
    EXPECT_NE(heads.err.find("d (64) must be divisible by heads (5)"), std::string::npos)
        << heads.err;
    EXPECT_FALSE(fs::exists(dir.path() / "a"));
    const ProcessResult dtype = run_earshot(
        "debug make-checkpoint --out " + shell_quote((dir.path() / "b").string()) + " --dtype f64");
    EXPECT_EQ(dtype.exit_code, 2);
    EXPECT_NE(dtype.err.find("--dtype"), std::string::npos) << dtype.err;
}

}  // namespace
}  // namespace earshot::test
