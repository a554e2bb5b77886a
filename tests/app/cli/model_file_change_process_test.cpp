// A model's weights file changed under a running `earshot transcribe`: once the process shows its
// progress line (the model is loaded and decoding has begun), model.safetensors is truncated to
// 0 bytes, replaced by other bytes through a rename, or overwritten in place. The process must
// hold no mapping of the model's files at that moment, finish with exit 0 and no signal (a
// weight read through a mapping of a truncated file faults with SIGBUS), and write the same text
// as an undisturbed run (a mapping of a file overwritten in place would read the new bytes).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "file_bytes.h"
#include "micro_model.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"

extern char** environ;

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// What every drawing of the progress line holds (" 42% | 0:03 elapsed | ...").
constexpr const char* kProgressMark = "% | ";

enum class Change { none, truncate, replace, overwrite_in_place };

const char* change_name(Change change) {
    switch (change) {
        case Change::none:
            return "none";
        case Change::truncate:
            return "truncated to 0 bytes";
        case Change::replace:
            return "replaced through a rename";
        case Change::overwrite_in_place:
            return "overwritten in place";
    }
    return "?";
}

// The lines of /proc/<pid>/maps that name a file under `dir`.
std::vector<std::string> mappings_under(pid_t pid, const fs::path& dir) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::vector<std::string> found;
    for (std::string line; std::getline(maps, line);) {
        if (line.find(dir.string()) != std::string::npos) found.push_back(line);
    }
    return found;
}

// Every byte of `bytes` flipped: a file of the same size whose weights are all different.
std::string flipped(const std::vector<unsigned char>& bytes) {
    std::string text(bytes.size(), '\0');
    for (size_t i = 0; i < bytes.size(); ++i) text[i] = static_cast<char>(bytes[i] ^ 0xA5U);
    return text;
}

void apply(Change change, const fs::path& weights) {
    switch (change) {
        case Change::none:
            return;
        case Change::truncate:
            fs::resize_file(weights, 0);
            return;
        case Change::replace: {
            // How a download or an editor replaces a file: a new one renamed over the name.
            const fs::path temporary = weights.string() + ".new";
            std::ofstream(temporary, std::ios::binary)
                << flipped(read_file_bytes(weights, "weights"));
            fs::rename(temporary, weights);
            return;
        }
        case Change::overwrite_in_place: {
            // The same inode and size, other bytes (no O_TRUNC: a mapping would see them).
            const std::string other = flipped(read_file_bytes(weights, "weights"));
            std::FILE* file = std::fopen(weights.c_str(), "r+b");
            ASSERT_NE(file, nullptr) << weights;
            EXPECT_EQ(std::fwrite(other.data(), 1, other.size(), file), other.size());
            std::fclose(file);
            return;
        }
    }
}

struct RunOutcome {
    bool exited = false;
    bool killed_after_timeout = false;
    int exit_code = -1;
    int signal = 0;
    bool changed_while_running = false;  // the process was still at work after the change
    std::vector<std::string> mappings;   // of the model's files, when the change was made
    size_t progress_after_change = 0;    // progress redraws written after the change
    std::string err;
    std::string text;
};

class ModelFileChangeUnderEarshot : public ::testing::Test {
protected:
    // The WAV is spoken, and transcribed undisturbed, once for the suite.
    static void SetUpTestSuite() { suite_dir_ = new TempDir("earshot-model-file-change-app"); }
    static void TearDownTestSuite() {
        delete suite_dir_;
        suite_dir_ = nullptr;
        wav_.clear();
        undisturbed_.reset();
    }

    void SetUp() override {
        ASSERT_TRUE(fs::exists(micro_model_dir() / "model.safetensors")) << micro_model_dir();
        if (!wav_.empty()) return;
        ASSERT_EQ(run_shell("command -v espeak-ng").exit_code, 0)
            << "espeak-ng is not installed (packaging/setup.sh installs it)";
        // Twelve held-out sentences, said twice: about 90 s of speech, several seconds of work
        // for the micro model after it is loaded.
        SpeechOptions speech;
        speech.whole_sentences = true;
        speech.sentence_gap_s = 1.0;
        std::string why;
        const auto audio = speak_sentences(micro_heldout_words(12), speech, &why);
        ASSERT_TRUE(audio) << why;
        std::vector<float> samples = audio->samples;
        samples.insert(samples.end(), audio->samples.begin(), audio->samples.end());
        const fs::path wav = suite_dir_->path() / "dictation.wav";
        write_wav_pcm16(wav, samples);
        wav_ = wav;
    }

    // Transcribes the WAV with a fresh copy of the micro model, making `change` to its weights
    // file as soon as the progress line appears.
    RunOutcome transcribe(Change change, const std::string& name) {
        RunOutcome outcome;
        const fs::path& dir = suite_dir_->path();
        const fs::path model = dir / ("model_" + name);
        const fs::path out_dir = dir / ("out_" + name);
        const fs::path err_path = dir / (name + ".err");
        fs::copy(micro_model_dir(), model, fs::copy_options::recursive);
        fs::create_directories(out_dir);

        std::vector<std::string> args = {EARSHOT_EXE, "transcribe",   wav_.string(),
                                         "--model",   model.string(), "--format",
                                         "txt",       "--output-dir", out_dir.string()};
        std::vector<char*> argv;
        for (auto& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = -1;
        const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (spawned != 0) {
            ADD_FAILURE() << "cannot start " << EARSHOT_EXE;
            return outcome;
        }

        int status = 0;
        bool reaped = false;
        size_t progress_at_change = 0;
        if (change != Change::none) {
            // The first progress line: the model is loaded (and released), decoding begins.
            const auto deadline = std::chrono::steady_clock::now() + 120s;
            std::string err;
            while (err.find(kProgressMark) == std::string::npos &&
                   std::chrono::steady_clock::now() < deadline) {
                if (::waitpid(pid, &status, WNOHANG) == pid) {
                    reaped = true;
                    break;
                }
                std::this_thread::sleep_for(2ms);
                err = read_file_text(err_path);
            }
            if (!reaped && err.find(kProgressMark) != std::string::npos) {
                outcome.mappings = mappings_under(pid, model);
                apply(change, model / "model.safetensors");
                progress_at_change = count_progress(read_file_text(err_path));
                outcome.changed_while_running = ::waitpid(pid, &status, WNOHANG) == 0;
                reaped = !outcome.changed_while_running;
            }
        }
        // Undisturbed it takes seconds; a model read from changed bytes may decode garbage for
        // many minutes: the process is killed (and the run failed) after 5 minutes.
        const auto give_up = std::chrono::steady_clock::now() + 300s;
        while (!reaped && ::waitpid(pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > give_up) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, &status, 0);
                outcome.killed_after_timeout = true;
                break;
            }
            std::this_thread::sleep_for(10ms);
        }
        outcome.exited = WIFEXITED(status);
        outcome.exit_code = outcome.exited ? WEXITSTATUS(status) : -1;
        outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        outcome.err = read_file_text(err_path);
        const size_t progress = count_progress(outcome.err);
        outcome.progress_after_change =
            progress > progress_at_change ? progress - progress_at_change : 0;
        outcome.text = read_file_text(out_dir / "dictation.txt");
        return outcome;
    }

    // Progress redraws ("\r 42% | ...") in what the process wrote to stderr.
    static size_t count_progress(const std::string& err) {
        size_t count = 0;
        for (size_t at = err.find(kProgressMark); at != std::string::npos;
             at = err.find(kProgressMark, at + 1)) {
            ++count;
        }
        return count;
    }

    void expect_same_run(Change change, const std::string& name) {
        if (!undisturbed_) undisturbed_ = transcribe(Change::none, "undisturbed");
        const RunOutcome& undisturbed = *undisturbed_;
        ASSERT_TRUE(undisturbed.exited) << undisturbed.err;
        ASSERT_EQ(undisturbed.exit_code, 0) << undisturbed.err;
        ASSERT_FALSE(undisturbed.text.empty()) << undisturbed.err;

        const RunOutcome changed = transcribe(change, name);
        std::printf(
            "model file %s under earshot transcribe: exit %d, signal %d, %zu progress "
            "redraws after the change, %zu mappings of the model's files at the change\n",
            change_name(change), changed.exit_code, changed.signal, changed.progress_after_change,
            changed.mappings.size());
        EXPECT_TRUE(changed.changed_while_running)
            << "the change came after the process had finished: " << changed.err;
        EXPECT_GT(changed.progress_after_change, 0u) << "no progress after the change";
        EXPECT_EQ(changed.mappings, std::vector<std::string>{})
            << "the running process still maps the model's files";
        EXPECT_FALSE(changed.killed_after_timeout) << "still running after 5 minutes";
        EXPECT_EQ(changed.signal, 0) << strsignal(changed.signal) << "\n" << changed.err;
        EXPECT_TRUE(changed.exited);
        EXPECT_EQ(changed.exit_code, 0) << changed.err;
        EXPECT_EQ(changed.text, undisturbed.text);
    }

    static TempDir* suite_dir_;
    static fs::path wav_;
    static std::optional<RunOutcome> undisturbed_;
};

TempDir* ModelFileChangeUnderEarshot::suite_dir_ = nullptr;
fs::path ModelFileChangeUnderEarshot::wav_;
std::optional<RunOutcome> ModelFileChangeUnderEarshot::undisturbed_;

TEST_F(ModelFileChangeUnderEarshot, WeightsTruncatedToZeroBytesWhileTranscribing) {
    expect_same_run(Change::truncate, "truncate");
}

TEST_F(ModelFileChangeUnderEarshot, WeightsReplacedThroughARenameWhileTranscribing) {
    expect_same_run(Change::replace, "replace");
}

TEST_F(ModelFileChangeUnderEarshot, WeightsOverwrittenInPlaceWhileTranscribing) {
    expect_same_run(Change::overwrite_in_place, "overwrite");
}

}  // namespace
}  // namespace earshot::test
