// `earshot models quantize IN OUT --type T` through the real executable: the micro model to a
// q8_0 whisper.cpp file that loads, with progress on stderr; a bad type, an unreadable input and an
// unwritable output are one line and exit 2, with no file (or the old one) under the output name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
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

// One second of silence as a 16 kHz mono 16-bit WAV file.
void write_silence_wav(const fs::path& path) {
    const uint32_t data_bytes = 16000 * 2;
    std::ofstream out(path, std::ios::binary);
    const auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
    const auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
    out << "RIFF";
    u32(36 + data_bytes);
    out << "WAVEfmt ";
    u32(16);
    u16(1);  // PCM
    u16(1);  // mono
    u32(16000);
    u32(16000 * 2);
    u16(2);
    u16(16);
    out << "data";
    u32(data_bytes);
    out << std::string(data_bytes, '\0');
}

// A vocabulary that does not fit n_vocab: the micro model's GPT-2 vocabulary (50256 base tokens)
// under the multilingual n_vocab 51865, whose <|endoftext|> is 50257. whisper.cpp would load the
// file, but `earshot transcribe` refuses the folder, so quantize refuses it before any weight.
TEST(ModelsQuantize, AVocabularyThatDoesNotFitNVocabIsOneLineAndExit2) {
    const TempDir dir("earshot-models-quantize");
    const fs::path model = dir.path() / "mismatched-vocabulary";
    fs::copy(micro_model_dir(), model);
    std::string config;
    {
        std::ifstream in(model / "config.json", std::ios::binary);
        config.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::string size = "\"vocab_size\": 51864";
    const std::size_t at = config.find(size);
    ASSERT_NE(at, std::string::npos) << "the micro model's config changed";
    config.replace(at, size.size(), "\"vocab_size\": 51865");
    std::ofstream(model / "config.json", std::ios::binary | std::ios::trunc) << config;

    const fs::path out = dir.path() / "out.bin";
    const ProcessResult result = run_earshot(quantize_args(model, out, "q8_0"));
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;  // no progress line: refused up front
    EXPECT_EQ(result.err.rfind("models quantize: ", 0), 0u) << result.err;
    EXPECT_NE(
        result.err.find("the base vocabulary has 50256 tokens, but n_vocab 51865 needs 50257"),
        std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(out));

    // What transcribe says of the same folder: the refusal a user would otherwise meet later.
    const fs::path audio = dir.path() / "silence.wav";
    write_silence_wav(audio);
    const ProcessResult transcribe = run_earshot(
        "transcribe --backend cpu --model " + shell_quote(model.string()) + " --output-dir " +
        shell_quote(dir.path().string()) + " " + shell_quote(audio.string()));
    EXPECT_NE(transcribe.exit_code, 0) << transcribe.err;
    EXPECT_NE(transcribe.err.find("the base vocabulary has 50256 tokens"), std::string::npos)
        << transcribe.err;
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
