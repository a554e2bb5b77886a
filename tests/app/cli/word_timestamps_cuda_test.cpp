// `earshot transcribe --word-timestamps --backend cuda` with the embedded micro model: the same
// words as `--backend cpu`, each starting and ending within two audio frames of the CPU's times.
// Needs a CUDA device (here the emulated module of cuda_app_emulated); skips with one line only
// on a machine without a driver or a device (cuda_test_device.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda_test_device.h"
#include "file_bytes.h"
#include "micro_model.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// Word times come from the alignment path over audio positions of 20 ms. The GPU's weights differ
// from the CPU's by f16 rounding (word_cross_attention_cuda_test: a few 1e-3), which may move a
// path step by a frame where two are nearly equal; two frames is the most a word may move.
constexpr double kTimeToleranceS = 0.040;

struct TimedWord {
    std::string word;
    double start_s = 0.0;
    double end_s = 0.0;
};

std::vector<TimedWord> timed_words(const fs::path& json_path) {
    const auto transcript = nlohmann::json::parse(read_file_text(json_path));
    std::vector<TimedWord> words;
    for (const auto& segment : transcript.at("segments")) {
        for (const auto& w : segment.at("words")) {
            words.push_back({w.at("word").get<std::string>(), w.at("start").get<double>(),
                             w.at("end").get<double>()});
        }
    }
    return words;
}

class WordTimestampsOnCudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        // `earshot gpus` lists devices, else says why there is none.
        EARSHOT_CUDA_TEST_GATE(cuda_test_gate_from_gpus_output(run_earshot("gpus").out));
        ASSERT_EQ(run_shell("command -v espeak-ng").exit_code, 0)
            << "espeak-ng is not installed (packaging/setup.sh installs it)";
    }

    // The speech transcribed with word times on `backend`, as JSON in dir_/<backend>/.
    ProcessResult transcribe(const fs::path& speech, const std::string& backend) {
        const fs::path out = dir_.path() / backend;
        fs::create_directories(out);
        return run_earshot("transcribe " + shell_quote(speech.string()) + " --model " +
                           shell_quote(micro_model_dir().string()) + " --backend " + backend +
                           " --word-timestamps --format json --output-dir " +
                           shell_quote(out.string()));
    }

    TempDir dir_{"earshot-cuda-word-times"};
};

TEST_F(WordTimestampsOnCudaDevice, TheGpuGivesTheCpusWordsAndTimes) {
    // One held-out sentence: the emulated device takes about 20 s of CPU for its one window.
    const std::vector<std::vector<std::string>> sentences = micro_heldout_words(1);
    ASSERT_EQ(sentences.size(), 1U);
    std::string why;
    const auto audio = speak_sentences(sentences, SpeechOptions{}, &why);
    ASSERT_TRUE(audio) << why;
    const fs::path speech = dir_.path() / "speech.wav";
    write_wav_pcm16(speech, audio->samples);

    const ProcessResult cpu = transcribe(speech, "cpu");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const ProcessResult gpu = transcribe(speech, "cuda");
    ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
    EXPECT_EQ(gpu.err.find("cross-attention"), std::string::npos) << gpu.err;

    const std::vector<TimedWord> want = timed_words(dir_.path() / "cpu" / "speech.json");
    const std::vector<TimedWord> got = timed_words(dir_.path() / "cuda" / "speech.json");
    ASSERT_GE(want.size(), 4U) << "the micro model hears the sentence";
    ASSERT_EQ(got.size(), want.size());
    double worst_s = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].word, want[i].word) << "word " << i;
        const double start_s = std::abs(got[i].start_s - want[i].start_s);
        const double end_s = std::abs(got[i].end_s - want[i].end_s);
        worst_s = std::max({worst_s, start_s, end_s});
        EXPECT_LE(start_s, kTimeToleranceS) << "start of \"" << want[i].word << "\"";
        EXPECT_LE(end_s, kTimeToleranceS) << "end of \"" << want[i].word << "\"";
    }
    std::printf("%zu words; CUDA word times against the CPU's: at most %.3f s apart\n", want.size(),
                worst_s);
}

}  // namespace
}  // namespace earshot::test
