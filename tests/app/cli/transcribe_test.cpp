// `earshot transcribe` through the real executable: a small random checkpoint on jfk.wav writes
// every format with well-formed, ordered times; a missing input fails alone (exit 1); bad
// arguments exit 2 before any work.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "earshot/audio/file_decoder.h"
#include "earshot/core/loaded_model.h"
#include "earshot/engine/decoding/language_detection.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "run_process.h"
#include "small_checkpoint.h"
#include "temp_dir.h"
#include "whole_file_mel.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kShared(EARSHOT_SHARED_DIR);
const fs::path kJfk = kShared / "whisper-assets" / "jfk.wav";
const fs::path kVocab = kShared / "whisper-assets" / "multilingual.tiktoken";
constexpr double kJfkSeconds = 11.0;  // 176000 samples at 16 kHz

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Cue {
    int number = 0;
    double start_s = 0;
    double end_s = 0;
};

double srt_seconds(const std::string& h, const std::string& m, const std::string& s,
                   const std::string& ms) {
    return std::stoi(h) * 3600.0 + std::stoi(m) * 60.0 + std::stoi(s) + std::stoi(ms) / 1000.0;
}

// Parses SRT line by line: a cue number, its timing line, text lines up to a blank line (none for
// an empty segment), blank lines between cues. Fails the test on anything else.
std::vector<Cue> parse_srt(const std::string& srt) {
    static const std::regex timing(
        R"((\d{2}):(\d{2}):(\d{2}),(\d{3}) --> (\d{2}):(\d{2}):(\d{2}),(\d{3}))");
    static const std::regex number(R"(\d+)");
    std::vector<Cue> cues;
    std::istringstream lines(srt);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        EXPECT_TRUE(std::regex_match(line, number)) << "expected a cue number: " << line;
        Cue cue;
        cue.number = std::stoi(line);
        std::string times;
        std::getline(lines, times);
        std::smatch m;
        if (!std::regex_match(times, m, timing)) {
            ADD_FAILURE() << "bad timing line: " << times;
            break;
        }
        cue.start_s = srt_seconds(m[1], m[2], m[3], m[4]);
        cue.end_s = srt_seconds(m[5], m[6], m[7], m[8]);
        cues.push_back(cue);
        while (std::getline(lines, line) && !line.empty()) {
        }
    }
    EXPECT_TRUE(srt.empty() || srt.ends_with("\n\n")) << "the last cue is not terminated";
    return cues;
}

class TranscribeCommand : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!fs::exists(kJfk) || !fs::exists(kVocab)) return;
        model_dir_ = std::make_unique<TempDir>("earshot-transcribe-model");
        model::write_random_checkpoint(model_dir_->path() / "ck", small_checkpoint_options());
    }
    static void TearDownTestSuite() { model_dir_.reset(); }

    void SetUp() override {
        if (!fs::exists(kJfk) || !fs::exists(kVocab)) {
            GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found under " << kShared;
        }
    }

    static std::string model_args() {
        return " --model " + shell_quote((model_dir_->path() / "ck").string()) + " --vocab " +
               shell_quote(kVocab.string()) + " --beam 1 --temperature 0";
    }

    static std::unique_ptr<TempDir> model_dir_;
};

std::unique_ptr<TempDir> TranscribeCommand::model_dir_;

TEST_F(TranscribeCommand, WritesEveryFormatWithOrderedTimesInsideTheAudio) {
    const TempDir out("earshot-transcribe-out");
    const ProcessResult result =
        run_earshot("transcribe " + shell_quote(kJfk.string()) + model_args() +
                    " --language en --format txt,srt,vtt,json --output-dir " +
                    shell_quote(out.path().string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    // The progress line: redrawn with '\r', ends at 100 % with the file name and a newline.
    EXPECT_NE(result.err.find('\r'), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("100% | "), std::string::npos) << result.err;
    EXPECT_TRUE(std::regex_search(result.err, std::regex(R"(real time \| jfk\.wav *\n)")))
        << result.err;

    for (const char* ext : {"txt", "srt", "vtt", "json"}) {
        EXPECT_TRUE(fs::is_regular_file(out.path() / ("jfk." + std::string(ext)))) << ext;
    }
    const std::vector<Cue> cues = parse_srt(read_text(out.path() / "jfk.srt"));
    ASSERT_FALSE(cues.empty());
    double previous_end_s = 0.0;
    for (size_t i = 0; i < cues.size(); ++i) {
        EXPECT_EQ(cues[i].number, static_cast<int>(i) + 1);
        EXPECT_LE(cues[i].start_s, cues[i].end_s) << "cue " << i + 1;
        EXPECT_GE(cues[i].start_s, previous_end_s) << "cue " << i + 1 << " overlaps";
        EXPECT_LE(cues[i].end_s, kJfkSeconds) << "cue " << i + 1;
        previous_end_s = cues[i].end_s;
    }

    // JSON keeps every segment; the subtitles and TXT hold the ones with text, in order.
    const auto json = nlohmann::json::parse(read_text(out.path() / "jfk.json"));
    EXPECT_EQ(json["language"], "en");
    EXPECT_FALSE(json.contains("incomplete")) << "a finished run is complete";
    std::vector<nlohmann::json> spoken;
    for (size_t i = 0; i < json["segments"].size(); ++i) {
        const auto& segment = json["segments"][i];
        EXPECT_EQ(segment["id"], i);
        EXPECT_EQ(segment["temperature"], 0.0);
        const std::string text = segment["text"];
        if (text.find_first_not_of(" \t\n") != std::string::npos) spoken.push_back(segment);
    }
    ASSERT_EQ(spoken.size(), cues.size());
    for (size_t i = 0; i < cues.size(); ++i) {
        EXPECT_NEAR(spoken[i]["start"].get<double>(), cues[i].start_s, 0.0005);
    }
    const std::string vtt = read_text(out.path() / "jfk.vtt");
    EXPECT_EQ(vtt.rfind("WEBVTT\n\n", 0), 0u);
    // One TXT line per cue.
    const std::string txt = read_text(out.path() / "jfk.txt");
    EXPECT_EQ(static_cast<size_t>(std::count(txt.begin(), txt.end(), '\n')), cues.size());
}

TEST_F(TranscribeCommand, AMissingInputFailsAloneWithExitOne) {
    const TempDir out("earshot-transcribe-out");
    const fs::path missing = out.path() / "no-such-file.wav";
    const ProcessResult result =
        run_earshot("transcribe " + shell_quote(missing.string()) + " " +
                    shell_quote(kJfk.string()) + model_args() +
                    " --language en --format txt --output-dir " + shell_quote(out.path().string()));
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find("no-such-file.wav"), std::string::npos) << result.err;
    // The file is named once in its message, not "x.wav: x.wav: cannot open".
    const std::string named = missing.string() + ": ";
    EXPECT_NE(result.err.find("earshot transcribe: " + named), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find(named + named), std::string::npos) << result.err;
    EXPECT_TRUE(fs::is_regular_file(out.path() / "jfk.txt"));
    EXPECT_FALSE(fs::exists(out.path() / "no-such-file.txt"));
    EXPECT_FALSE(fs::exists(out.path() / "jfk.srt"));  // only the formats asked for
}

TEST_F(TranscribeCommand, DetectsTheLanguageOnceWhenAskedForAuto) {
    const TempDir out("earshot-transcribe-out");
    const ProcessResult result =
        run_earshot("transcribe " + shell_quote(kJfk.string()) + model_args() +
                    " --format json --output-dir " + shell_quote(out.path().string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = nlohmann::json::parse(read_text(out.path() / "jfk.json"));
    const std::string language = json["language"].get<std::string>();

    // The random model's guess is noise, but a definite one: what the model says on the file's
    // first window (its silence-padded log-mel, as openai detects once per file). Computed here in
    // process on the same checkpoint and backend, it is the code the command must report.
    const auto loaded = app::load_model(model_dir_->path() / "ck", kVocab);
    const int64_t mels = loaded->model->mels();
    const int64_t frames = loaded->model->frames();
    const backend::HostTensor mel =
        app::whole_file_mel(audio::decode_file(kJfk).samples, mels, frames);  // [Mels, N]
    backend::HostTensor first = backend::HostTensor::f32({1, mels, frames}, 0.0F);
    const std::span<const float> all = mel.f32_values();
    for (int64_t m = 0; m < mels; ++m) {
        std::copy_n(all.begin() + m * mel.dim(1), frames, first.f32_values().begin() + m * frames);
    }
    const decoding::LanguageGuess guess =
        decoding::detect_language(*loaded->model, loaded->tokenizer, first);
    std::printf("random model on jfk.wav's first window: %s (p %.3f); the command wrote %s\n",
                guess.code.c_str(), guess.probabilities.front().second, language.c_str());
    EXPECT_EQ(language, guess.code);
}

// Inputs that would write the same output name get -2, -3, ... in command-line order, so none
// overwrites another: a.wav, sub/a.wav and a-2.wav into one folder -> a, a-2 and a-2-2.
TEST_F(TranscribeCommand, InputsWithTheSameNameGetDistinctOutputs) {
    const TempDir dir("earshot-transcribe-names");
    const fs::path out = dir.path() / "out";
    fs::create_directories(dir.path() / "sub");
    for (const char* name : {"a.wav", "sub/a.wav", "a-2.wav"}) {
        fs::copy_file(kJfk, dir.path() / name);
    }
    const ProcessResult result =
        run_earshot("transcribe " + shell_quote((dir.path() / "a.wav").string()) + " " +
                    shell_quote((dir.path() / "sub" / "a.wav").string()) + " " +
                    shell_quote((dir.path() / "a-2.wav").string()) + model_args() +
                    " --language en --format txt,json --output-dir " + shell_quote(out.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::vector<std::string> wrote;
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("Wrote ")) wrote.push_back(fs::path(line.substr(6)).filename());
    }
    const std::vector<std::string> expected = {"a.txt",    "a.json",    "a-2.txt",
                                               "a-2.json", "a-2-2.txt", "a-2-2.json"};
    EXPECT_EQ(wrote, expected) << result.out;
    for (const std::string& name : expected) {
        EXPECT_TRUE(fs::is_regular_file(out / name)) << name;
    }
    std::vector<std::string> present;
    for (const auto& entry : fs::directory_iterator(out)) {
        present.push_back(entry.path().filename());
    }
    EXPECT_EQ(present.size(), expected.size());

    // Without --output-dir the same rule holds beside the inputs: one file named twice.
    const ProcessResult twice =
        run_earshot("transcribe " + shell_quote((dir.path() / "sub" / "a.wav").string()) + " " +
                    shell_quote((dir.path() / "sub" / "a.wav").string()) + model_args() +
                    " --language en --format txt");
    ASSERT_EQ(twice.exit_code, 0) << twice.err;
    EXPECT_TRUE(fs::is_regular_file(dir.path() / "sub" / "a.txt"));
    EXPECT_TRUE(fs::is_regular_file(dir.path() / "sub" / "a-2.txt"));
}

// Argument errors exit 2 before any audio is read (none of these needs the shared assets).
TEST(TranscribeArguments, BadArgumentsExitTwo) {
    const TempDir dir("earshot-transcribe-args");
    const std::string audio = shell_quote((dir.path() / "a.wav").string());
    const std::string model = " --model " + shell_quote((dir.path() / "missing-model").string());

    ProcessResult r = run_earshot("transcribe " + audio + model + " --format txt,docx");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("docx"), std::string::npos) << r.err;

    r = run_earshot("transcribe " + audio + model + " --beam 0");
    EXPECT_EQ(r.exit_code, 2) << r.err;

    // A catalog model that is not installed (an empty models folder): what to run instead.
    r = run_shell("XDG_DATA_HOME=" + shell_quote(dir.path().string()) + " " +
                  shell_quote(EARSHOT_EXE) + " transcribe " + audio + " --model ggml-tiny.en");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("run `earshot models pull ggml-tiny.en`"), std::string::npos) << r.err;

    r = run_earshot("transcribe " + audio + model);  // the model does not exist
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("missing-model"), std::string::npos) << r.err;

    r = run_earshot("transcribe " + audio + model + " --backend cuda");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;

    r = run_earshot("transcribe " + audio + model + " --task summarize");
    EXPECT_EQ(r.exit_code, 2) << r.err;

    r = run_earshot("transcribe " + audio + " " + audio + model + " --output-name b");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--output-name names the outputs of one input; 2 were given"),
              std::string::npos)
        << r.err;
    r = run_earshot("transcribe " + audio + model + " --output-name sub/b");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--output-name sub/b: expected a file name without a folder"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "a.txt"));
}

// Ctrl-C stops after the current window, writes what the first file has so far, starts no
// further file and exits 130. The signal is sent once the first window is done, and the input
// (jfk.wav repeated to 5.5 minutes, a dozen windows) is long enough that it lands mid-file.
TEST_F(TranscribeCommand, CtrlCWritesWhatIsDoneAndStops) {
    const TempDir out("earshot-transcribe-int");
    const fs::path long_input = out.path() / "long.wav";
    const ProcessResult made = run_shell("sox " + shell_quote(kJfk.string()) + " " +
                                         shell_quote(long_input.string()) + " repeat 29");
    // sox is a package packaging/setup.sh installs: a failure here is a broken setup.
    ASSERT_EQ(made.exit_code, 0) << "sox could not make the long input: " << made.err;
    const std::string args = "transcribe " + shell_quote(long_input.string()) + " " +
                             shell_quote(kJfk.string()) + model_args() +
                             " --format txt,json --output-dir " + shell_quote(out.path().string());
    // Run in the background; once the progress line shows a window done (a percentage above
    // 0), interrupt; report the exit status. The wait is bounded (5 minutes) and ends early if the
    // command exits on its own.
    const std::string progress = shell_quote((out.path() / "progress.err").string());
    const ProcessResult result =
        run_shell("( " + shell_quote(EARSHOT_EXE) + " " + args + " 2>" + progress +
                  " & pid=$!; i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 6000 ] && "
                  "! tr '\\r' '\\n' <" +
                  progress +
                  " | grep -Eq '^ *[1-9][0-9]*% \\|'; "
                  "do sleep 0.05; i=$((i + 1)); done; kill -INT $pid; wait $pid; "
                  "echo \"status=$?\"; cat " +
                  progress + " >&2 )");
    EXPECT_NE(result.out.find("status=130"), std::string::npos) << result.out << result.err;
    EXPECT_NE(result.err.find("interrupted"), std::string::npos) << result.err;
    EXPECT_TRUE(fs::is_regular_file(out.path() / "long.json"));
    const auto json = nlohmann::json::parse(read_text(out.path() / "long.json"));
    // What the windows done before the interrupt heard is written...
    ASSERT_FALSE(json["segments"].empty()) << "no segment before the interrupt";
    EXPECT_EQ(json.value("incomplete", false), true) << "the JSON must say it is incomplete";
    // ... and a marker beside it says so for every format (--skip-done takes the file again).
    EXPECT_TRUE(fs::is_regular_file(out.path() / "long.incomplete"));
    std::printf("interrupted with %zu segments written, the last ending at %.1f s of 330 s\n",
                json["segments"].size(), json["segments"].back()["end"].get<double>());
    // ... only part of the 5.5 minutes was transcribed, and the second file never started.
    for (const auto& segment : json["segments"]) EXPECT_LT(segment["end"].get<double>(), 300.0);
    EXPECT_FALSE(fs::exists(out.path() / "jfk.json"));
}

}  // namespace
}  // namespace earshot::test
