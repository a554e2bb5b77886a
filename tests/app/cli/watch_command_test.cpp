// `earshot watch DIR` on the embedded micro model: a recording written in two parts is taken only
// once it has stopped growing, one copied in under a temporary name once renamed; a note, a
// partial download and a broken recording are one line each and the watch goes on; the
// transcripts equal `earshot transcribe`'s byte for byte; SIGTERM lets the file in progress
// finish; a restarted watch skips what is done.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "file_bytes.h"
#include "micro_command.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class WatchCommand : public MicroModelCommand {
protected:
    fs::path say(const fs::path& dir, const std::string& name, const std::string& sentence) {
        const fs::path wav = dir / (name + ".wav");
        const ProcessResult spoken =
            run_shell("espeak-ng -v en-us -s 160 -w " + shell_quote(wav.string()) + " " +
                      shell_quote(sentence));
        EXPECT_EQ(spoken.exit_code, 0) << spoken.err;
        return wav;
    }

    // Starts `earshot watch` in the background; its stdout and stderr go to files, its pid and
    // then its exit status to files of their own.
    void start_watch() {
        fs::remove(status_);
        fs::remove(pid_file_);
        const std::string watch =
            shell_quote(EARSHOT_EXE) + " watch " + shell_quote(watched_.string()) + " --out " +
            shell_quote(out_.string()) + " --model " + shell_quote(micro_model_dir().string()) +
            " --format txt,json --settle-s 1.5 --poll-ms 100 > " + shell_quote(log_out_.string()) +
            " 2> " + shell_quote(log_err_.string());
        const std::string script = watch + " & echo $! > " + shell_quote(pid_file_.string()) +
                                   "; wait $!; echo $? > " + shell_quote(status_.string());
        ASSERT_EQ(run_shell("sh -c " + shell_quote(script) + " > /dev/null 2>&1 &").exit_code, 0);
        for (int i = 0; i < 100 && read_file_text(pid_file_).empty(); ++i) {
            std::this_thread::sleep_for(50ms);
        }
        pid_ = std::stoi(read_file_text(pid_file_));
    }

    // Waits (up to 60 s) until `text` is in the watch's stderr or stdout.
    bool wait_for_log(const std::string& text) {
        for (int i = 0; i < 600; ++i) {
            if (logs().find(text) != std::string::npos) return true;
            std::this_thread::sleep_for(100ms);
        }
        return false;
    }

    std::string logs() const { return read_file_text(log_out_) + "\n" + read_file_text(log_err_); }

    // SIGTERM, then waits (up to 60 s) for the exit; the exit status, -1 when it did not exit.
    int stop_watch() {
        ::kill(pid_, SIGTERM);
        for (int i = 0; i < 600; ++i) {
            const std::string status = read_file_text(status_);
            if (!status.empty() && status.back() == '\n') return std::stoi(status);
            std::this_thread::sleep_for(100ms);
        }
        return -1;
    }

    fs::path watched_ = dir_.path() / "inbox";
    fs::path out_ = dir_.path() / "transcripts";
    fs::path spoken_ = dir_.path() / "spoken";
    fs::path log_out_ = dir_.path() / "watch.out";
    fs::path log_err_ = dir_.path() / "watch.err";
    fs::path pid_file_ = dir_.path() / "watch.pid";
    fs::path status_ = dir_.path() / "watch.status";
    int pid_ = 0;
};

TEST_F(WatchCommand, TakesSettledRecordingsIgnoresTheRestAndSkipsWhatIsDoneAfterARestart) {
    fs::create_directories(watched_);
    fs::create_directories(spoken_);
    const fs::path grown = say(spoken_, "grown", "please call me tomorrow");
    const fs::path copied = say(spoken_, "copied", "see you tomorrow");
    // The single-process answers.
    const ProcessResult expected = transcribe({grown, copied}, "--format txt,json");
    ASSERT_EQ(expected.exit_code, 0) << expected.err;

    start_watch();
    ASSERT_TRUE(wait_for_log("earshot watch: watching")) << logs();
    std::ofstream(watched_ / "notes.txt") << "not a recording\n";
    std::ofstream(watched_ / "broken.wav") << "RIFF but nothing a decoder reads";
    // A recording written in two parts, half a second apart: taken whole, after it settled.
    const std::string bytes = read_file_text(grown);
    {
        std::ofstream part(watched_ / "grown.wav", std::ios::binary);
        part << bytes.substr(0, bytes.size() / 2) << std::flush;
        std::this_thread::sleep_for(500ms);
        part << bytes.substr(bytes.size() / 2);
    }
    // A copy under a temporary name, then renamed: the temporary one is ignored.
    fs::copy_file(copied, watched_ / "copied.wav.part");
    ASSERT_TRUE(wait_for_log("ignored copied.wav.part")) << logs();
    fs::rename(watched_ / "copied.wav.part", watched_ / "copied.wav");

    ASSERT_TRUE(wait_for_log("Transcribed grown.wav")) << logs();
    ASSERT_TRUE(wait_for_log("Transcribed copied.wav")) << logs();
    ASSERT_TRUE(wait_for_log("broken.wav: not transcribed")) << logs();
    for (const char* name : {"grown.txt", "grown.json", "copied.txt", "copied.json"}) {
        EXPECT_EQ(read_file_text(out_ / name), read_file_text(dir_.path() / name)) << name;
    }
    EXPECT_NE(read_file_text(out_ / "grown.txt").find("please call me tomorrow"),
              std::string::npos);
    EXPECT_EQ(stop_watch(), 0);
    const std::string first = logs();
    EXPECT_NE(first.find("earshot watch: ignored notes.txt: not an audio or video file"),
              std::string::npos)
        << first;
    EXPECT_NE(first.find("stopped (2 transcribed, 1 failed)"), std::string::npos) << first;
    EXPECT_EQ(first.find("Transcribed broken.wav"), std::string::npos) << first;
    // Each file once.
    EXPECT_EQ(first.find("transcribing grown.wav"), first.rfind("transcribing grown.wav")) << first;

    // Restarted: what is done is skipped, nothing is written again.
    const auto written = fs::last_write_time(out_ / "grown.txt");
    start_watch();
    ASSERT_TRUE(wait_for_log("Skipped grown.wav")) << logs();
    ASSERT_TRUE(wait_for_log("Skipped copied.wav")) << logs();
    EXPECT_EQ(stop_watch(), 0);
    EXPECT_EQ(logs().find("Transcribed"), std::string::npos) << logs();
    EXPECT_EQ(fs::last_write_time(out_ / "grown.txt"), written);
}

// Two recordings with one stem (same.wav, same.wave): each gets its own transcripts, named with
// its extension, and neither is skipped as done because of the other's.
TEST_F(WatchCommand, RecordingsThatShareANameKeepTheirOwnTranscripts) {
    fs::create_directories(watched_);
    fs::create_directories(spoken_);
    const fs::path first = say(spoken_, "first", "please call me tomorrow");
    const fs::path second = say(spoken_, "second", "see you tomorrow");
    fs::copy_file(first, watched_ / "same.wav");
    fs::copy_file(second, watched_ / "same.wave");

    start_watch();
    ASSERT_TRUE(wait_for_log("Transcribed same.wav ")) << logs();
    ASSERT_TRUE(wait_for_log("Transcribed same.wave ")) << logs();
    EXPECT_EQ(stop_watch(), 0);
    EXPECT_NE(read_file_text(out_ / "same.wav.txt").find("please call me tomorrow"),
              std::string::npos)
        << read_file_text(out_ / "same.wav.txt");
    EXPECT_NE(read_file_text(out_ / "same.wave.txt").find("see you tomorrow"), std::string::npos)
        << read_file_text(out_ / "same.wave.txt");
    EXPECT_TRUE(fs::is_regular_file(out_ / "same.wave.json"));
    EXPECT_FALSE(fs::exists(out_ / "same.txt"));
}

TEST_F(WatchCommand, SigtermFinishesTheFileInProgress) {
    fs::create_directories(watched_);
    fs::create_directories(spoken_);
    const fs::path wav = say(spoken_, "long",
                             "please call me tomorrow. see you tomorrow. call the doctor today. "
                             "please call me tomorrow. see you tomorrow. call the doctor today.");
    start_watch();
    ASSERT_TRUE(wait_for_log("earshot watch: watching")) << logs();
    fs::copy_file(wav, watched_ / "long.wav");
    ASSERT_TRUE(wait_for_log("transcribing long.wav")) << logs();
    EXPECT_EQ(stop_watch(), 0);
    // The transcript is whole: written by a child that finished, not one cut short.
    const std::string json = read_file_text(out_ / "long.json");
    EXPECT_NE(json.find("\"segments\""), std::string::npos) << json;
    EXPECT_EQ(json.find("\"incomplete\""), std::string::npos) << json;
    EXPECT_NE(logs().find("stopped (1 transcribed, 0 failed)"), std::string::npos) << logs();
}

TEST_F(WatchCommand, BadArgumentsAreOneLineErrorsWithExit2) {
    const ProcessResult missing = run_earshot("watch " + (dir_.path() / "nowhere").string());
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err,
              "earshot watch: " + (dir_.path() / "nowhere").string() + ": not a folder\n");
    const ProcessResult format = run_earshot("watch " + dir_.path().string() + " --format txt,doc");
    EXPECT_EQ(format.exit_code, 2);
    EXPECT_EQ(format.err,
              "earshot watch: unknown format \"doc\" (expected txt, srt, vtt or json)\n");
}

}  // namespace
}  // namespace earshot::test
