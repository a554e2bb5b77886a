// Transcripts are written atomically: write_file_atomically replaces a file whole or not at all
// (SIGKILL at random moments of a 4 MB write, a full disk, a missing folder), and `earshot
// transcribe` killed with SIGKILL while it runs leaves the old transcript or the complete new one.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/files/atomic_file.h"
#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kJfk = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Temporary files the writer leaves in `folder` (only a killed writer leaves one).
std::vector<fs::path> temporaries(const fs::path& folder) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().filename().string().find(".tmp-") != std::string::npos) {
            found.push_back(entry.path());
        }
    }
    return found;
}

void sleep_us(long microseconds) {
    timespec pause{microseconds / 1'000'000, (microseconds % 1'000'000) * 1000};
    nanosleep(&pause, nullptr);
}

// Version `n` of a file: 4 MB of one letter between a header and a footer naming `n`, so that
// any mix of two versions or any cut is recognisable.
std::string version(int n) {
    std::string text = "version " + std::to_string(n) + "\n";
    text.append(4 << 20, static_cast<char>('a' + n % 26));
    return text + "end of version " + std::to_string(n) + "\n";
}

TEST(AtomicFile, ReplacesTheFileAndLeavesNoTemporary) {
    const TempDir dir("earshot-atomic");
    const fs::path target = dir.path() / "out.txt";
    earshot::app::write_file_atomically(target, "first\n");
    EXPECT_EQ(read_text(target), "first\n");
    earshot::app::write_file_atomically(target, "second, longer\n");
    EXPECT_EQ(read_text(target), "second, longer\n");
    earshot::app::write_file_atomically(target, "");
    EXPECT_TRUE(fs::is_regular_file(target));
    EXPECT_EQ(fs::file_size(target), 0u);
    EXPECT_TRUE(temporaries(dir.path()).empty());
    // Mode 0666 less the umask, as an ofstream would have made it.
    const mode_t mask = ::umask(022);
    ::umask(mask);
    struct stat info {};
    ASSERT_EQ(::stat(target.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0666 & ~mask);
}

TEST(AtomicFile, AFailureNamesThePathAndTheReasonAndKeepsTheOldFile) {
    const TempDir dir("earshot-atomic");
    const fs::path missing_folder = dir.path() / "no-such-folder" / "out.txt";
    try {
        earshot::app::write_file_atomically(missing_folder, "text");
        FAIL() << "writing into a missing folder succeeded";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(missing_folder.string()), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
            << e.what();
    }
    const fs::path folder_named = dir.path() / "a-folder";
    fs::create_directories(folder_named);
    EXPECT_THROW(earshot::app::write_file_atomically(folder_named, "text"), std::runtime_error);
    EXPECT_TRUE(fs::is_directory(folder_named));
    EXPECT_TRUE(temporaries(dir.path()).empty());
}

// A child writes versions 1, 2, 3, ... over the file as fast as it can; it is killed with SIGKILL
// after a random 0-40 ms, forty times. Each time the file holds one whole version. Some kills
// must land inside a write (a temporary left behind), or the test proved nothing.
TEST(AtomicFile, SigkillDuringAWriteLeavesTheOldFileOrTheWholeNewOne) {
    const TempDir dir("earshot-atomic-kill");
    const fs::path target = dir.path() / "transcript.txt";
    std::vector<std::string> versions;
    for (int n = 0; n < 8; ++n) versions.push_back(version(n));
    earshot::app::write_file_atomically(target, versions[0]);
    unsigned seed = 12345;
    int inside_a_write = 0;
    int replaced = 0;
    for (int round = 0; round < 40; ++round) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            for (int n = 1;; n = n % 7 + 1) {
                earshot::app::write_file_atomically(target, versions[static_cast<size_t>(n)]);
            }
        }
        seed = seed * 1103515245u + 12345u;
        sleep_us(static_cast<long>((seed >> 8) % 40'000));
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status));

        const std::string text = read_text(target);
        bool whole = false;
        for (size_t n = 0; n < versions.size(); ++n) {
            if (text == versions[n]) {
                whole = true;
                replaced += n != 0 ? 1 : 0;
            }
        }
        ASSERT_TRUE(whole) << "round " << round << ": the file holds " << text.size()
                           << " bytes that are no whole version, starting " << text.substr(0, 20);
        const std::vector<fs::path> left = temporaries(dir.path());
        inside_a_write += left.empty() ? 0 : 1;
        for (const fs::path& path : left) fs::remove(path);
    }
    std::printf("40 kills: %d inside a write, %d after at least one replacement\n", inside_a_write,
                replaced);
    EXPECT_GT(inside_a_write, 0) << "no kill landed inside a write";
    EXPECT_GT(replaced, 0) << "the child never replaced the file";
}

// A disk that fills up while the transcript is written: a 256 KiB tmpfs (in a private mount
// namespace, through unshare) filled to the last byte after the old transcript was put there.
// The command fails with exit 2 and a message naming the output and the reason; the old
// transcript is untouched and no temporary is left.
TEST(AtomicFile, AFullDiskKeepsTheOldTranscript) {
    const fs::path model = micro_model_dir();
    if (!fs::exists(kJfk)) GTEST_SKIP() << "jfk.wav not found: " << kJfk;
    const ProcessResult probe = run_shell("unshare -rm true");
    ASSERT_EQ(probe.exit_code, 0) << "unshare -rm (util-linux) must work here: " << probe.err;
    const TempDir dir("earshot-atomic-full");
    const fs::path mount = dir.path() / "disk";
    fs::create_directories(mount);
    const std::string old_text = "the old transcript, complete\n";
    const std::string script =
        "mount -t tmpfs -o size=256k tmpfs " + shell_quote(mount.string()) + " && printf %s " +
        shell_quote(old_text) + " > " + shell_quote((mount / "jfk.txt").string()) +
        " && { dd if=/dev/zero of=" + shell_quote((mount / "filler").string()) +
        " bs=4k 2>/dev/null; true; } && " + shell_quote(EARSHOT_EXE) + " transcribe " +
        shell_quote(kJfk.string()) + " --model " + shell_quote(model.string()) +
        " --beam 1 --temperature 0 --format txt --output-dir " + shell_quote(mount.string()) +
        "; status=$?; echo status=$status; cat " + shell_quote((mount / "jfk.txt").string()) +
        "; ls -a " + shell_quote(mount.string());
    const ProcessResult result = run_shell("unshare -rm sh -c " + shell_quote(script));
    EXPECT_NE(result.out.find("status=2\n"), std::string::npos) << result.out << result.err;
    EXPECT_NE(result.err.find("cannot write " + (mount / "jfk.txt").string() +
                              ": No space left on device"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.out.find(old_text), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find(".tmp-"), std::string::npos)
        << "a temporary was left: " << result.out;
}

// `earshot transcribe` (micro model, jfk.wav, every format) killed with SIGKILL at eight moments
// spread over a run's length: every output holds the old text or the complete new one.
TEST(AtomicFile, SigkillOfTranscribeLeavesOldOrCompleteOutputs) {
    const fs::path model = micro_model_dir();
    if (!fs::exists(kJfk)) GTEST_SKIP() << "jfk.wav not found: " << kJfk;
    const TempDir dir("earshot-atomic-transcribe");
    const std::vector<std::string> formats = {"txt", "srt", "vtt", "json"};
    const std::string command =
        shell_quote(EARSHOT_EXE) + " transcribe " + shell_quote(kJfk.string()) + " --model " +
        shell_quote(model.string()) + " --beam 1 --temperature 0 --format txt,srt,vtt,json";

    // One full run gives the complete outputs and the run's length.
    const fs::path reference = dir.path() / "reference";
    fs::create_directories(reference);
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult full =
        run_shell(command + " --output-dir " + shell_quote(reference.string()));
    const double run_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(full.exit_code, 0) << full.err;
    std::vector<std::string> complete;
    for (const std::string& format : formats) {
        complete.push_back(read_text(reference / ("jfk." + format)));
        ASSERT_FALSE(complete.back().empty()) << format;
    }
    ASSERT_TRUE(nlohmann::json::accept(complete[3])) << complete[3];

    int completed_runs = 0;
    for (int k = 1; k <= 8; ++k) {
        const fs::path out = dir.path() / ("run" + std::to_string(k));
        fs::create_directories(out);
        for (const std::string& format : formats) {
            std::ofstream(out / ("jfk." + format)) << "old " << format << "\n";
        }
        const double delay_s = run_s * k / 8.0;
        const ProcessResult killed =
            run_shell(command + " --output-dir " + shell_quote(out.string()) +
                      " >/dev/null 2>&1 & pid=$!; sleep " + std::to_string(delay_s) +
                      "; kill -KILL $pid 2>/dev/null; wait $pid; echo status=$?");
        completed_runs += killed.out.find("status=0") != std::string::npos ? 1 : 0;
        for (size_t i = 0; i < formats.size(); ++i) {
            const std::string text = read_text(out / ("jfk." + formats[i]));
            EXPECT_TRUE(text == "old " + formats[i] + "\n" || text == complete[i])
                << "kill at " << delay_s << " s left a partial jfk." << formats[i] << ": "
                << text.substr(0, 80);
        }
    }
    std::printf("a run takes %.2f s; %d of 8 runs finished before their kill\n", run_s,
                completed_runs);
    EXPECT_LT(completed_runs, 8) << "no kill landed while the command ran";
}

}  // namespace
}  // namespace earshot::test
