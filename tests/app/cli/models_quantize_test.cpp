// `earshot models quantize IN OUT --type T` through the real executable: the micro model to a
// q8_0 whisper.cpp file that loads, with progress on stderr; a bad type, an unreadable input and an
// unwritable output are one line and exit 2, with no file (or the old one) under the output name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

std::size_t line_count(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string quantize_args(const fs::path& in, const fs::path& out, const std::string& type) {
    return "models quantize " + shell_quote(in.string()) + " " + shell_quote(out.string()) +
           " --type " + type;
}

TEST(ModelsQuantize, WritesAQ8_0FileThatLoadsWithProgressOnStderr) {
    const TempDir dir("earshot-models-quantize");
    const fs::path out = dir.path() / "micro-q8_0.bin";
    const ProcessResult result = run_earshot(quantize_args(micro_model_dir(), out, "q8_0"));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("Wrote"), std::string::npos) << result.out;
    EXPECT_EQ(result.err.rfind("[1/", 0), 0u) << result.err;
    EXPECT_NE(result.err.find("decoder.token_embedding.weight q8_0"), std::string::npos);
    EXPECT_NE(result.err.find("encoder.conv1.weight f16"), std::string::npos);

    const checkpoint::GgmlFile f = checkpoint::read_ggml_file(out);
    EXPECT_EQ(f.hparams.ftype, 2007);
    ASSERT_EQ(f.mel_filters.size(), 80u * 201u);  // the real Slaney filters, as whisper.cpp reads
    EXPECT_GT(*std::max_element(f.mel_filters.begin(), f.mel_filters.end()), 0.0f);
    EXPECT_EQ(line_count(result.err), f.tensors.size());  // one progress line per tensor
    const model::WhisperCheckpoint loaded = model::load_whisper_checkpoint(out);
    EXPECT_EQ(loaded.weights.quantized_as("decoder_layers.0.mlp.fc1.weight"), "q8_0");
    for (const auto& entry : fs::directory_iterator(dir.path())) {
        EXPECT_EQ(entry.path(), out) << "left behind";
    }
}

TEST(ModelsQuantize, ABadTypeIsOneLineAndExit2) {
    const TempDir dir("earshot-models-quantize");
    const fs::path out = dir.path() / "out.bin";
    const ProcessResult result = run_earshot(quantize_args(micro_model_dir(), out, "q6_k"));
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find("unknown type \"q6_k\""), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("q8_0, q5_1, q5_0, q4_1, q4_0"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(ModelsQuantize, AnUnreadableInputIsOneLineAndKeepsTheOldOutput) {
    const TempDir dir("earshot-models-quantize");
    const fs::path out = dir.path() / "out.bin";
    std::ofstream(out) << "old";
    const ProcessResult result = run_earshot(quantize_args(dir.path() / "missing", out, "q8_0"));
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find("missing"), std::string::npos) << result.err;
    std::ifstream in(out);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "old");
}

TEST(ModelsQuantize, AnUnwritableOutputIsExit2AndLeavesNoFile) {
    const TempDir dir("earshot-models-quantize");
    // A folder that does not exist: refused before any work, one line.
    const fs::path nowhere = dir.path() / "no-such-folder" / "out.bin";
    const ProcessResult missing = run_earshot(quantize_args(micro_model_dir(), nowhere, "q4_0"));
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(line_count(missing.err), 1u) << missing.err;
    EXPECT_FALSE(fs::exists(nowhere.parent_path()));

    // A name taken by a folder: the rename fails after the work; the last line says why and the
    // temporary file is gone.
    const fs::path taken = dir.path() / "taken";
    fs::create_directory(taken);
    const ProcessResult result = run_earshot(quantize_args(micro_model_dir(), taken, "q4_0"));
    EXPECT_EQ(result.exit_code, 2);
    const std::string last_line =
        result.err.substr(result.err.rfind('\n', result.err.size() - 2) + 1);
    EXPECT_EQ(last_line.rfind("models quantize: ", 0), 0u) << result.err;
    EXPECT_TRUE(fs::is_directory(taken));
    EXPECT_TRUE(fs::is_empty(taken));
    for (const auto& entry : fs::directory_iterator(dir.path())) {
        EXPECT_EQ(entry.path(), taken) << "left behind";
    }
}

TEST(ModelsQuantize, ManPageAndHelpCoverIt) {
    const ProcessResult page = run_earshot("man-page");
    ASSERT_EQ(page.exit_code, 0) << page.err;
    EXPECT_NE(page.out.find(".SS \"earshot models quantize\"\n"), std::string::npos);
    EXPECT_NE(page.out.find("\\fB\\-\\-type\\fR \\fITEXT\\fR"), std::string::npos);
    const ProcessResult help = run_earshot("models quantize --help");
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("--type"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("q8_0, q5_1, q5_0, q4_1, q4_0"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace earshot::test
