// The app's session journal survives SIGKILL: the real `earshot gui` (offscreen, its own settings,
// data and socket) dictates a spoken file started with `earshot start --input`, is killed
// mid-dictation, and the journal still holds every version of the transcript it had saved a
// second before the kill, whole; the next start reopens it and keeps it above the new dictation.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "crash_journal_process.h"
#include "micro_model.h"
#include "micro_speech_file.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// Settings, data and the instance socket of a private app, and no display.
class PrivateApp {
public:
    explicit PrivateApp(const TempDir& dir) : root_(dir.path()) {
        fs::create_directories(root_ / "run");
        ::chmod((root_ / "run").c_str(), 0700);  // Qt insists on a private runtime folder
        environment_ = {"DISPLAY",
                        "WAYLAND_DISPLAY",
                        "QT_QPA_PLATFORM=offscreen",
                        "XDG_CONFIG_HOME=" + (root_ / "config").string(),
                        "XDG_DATA_HOME=" + (root_ / "data").string(),
                        "XDG_RUNTIME_DIR=" + (root_ / "run").string(),
                        "EARSHOT_INSTANCE_SOCKET=" + (root_ / "run" / "earshot.sock").string()};
    }
    const std::vector<std::string>& environment() const { return environment_; }

    // `earshot <args>` (shell-quoted) in the same environment.
    ProcessResult command(const std::string& args) const {
        std::string env = "env";
        for (const auto& setting : environment_) {
            env += setting.find('=') == std::string::npos ? " -u " + setting
                                                          : " " + shell_quote(setting);
        }
        return run_shell(env + " " + shell_quote(EARSHOT_EXE) + " " + args);
    }
    // The journal (<XDG_DATA_HOME>/earshot/session-transcript.txt).
    fs::path journal() const {
        if (!fs::exists(root_ / "data")) return {};
        for (const auto& entry : fs::recursive_directory_iterator(root_ / "data")) {
            if (entry.path().filename() == "session-transcript.txt") return entry.path();
        }
        return {};
    }

private:
    fs::path root_;
    std::vector<std::string> environment_;
};

// Waits until the instance answers `earshot status`; false when `gui` ended or 60 s passed.
bool wait_until_listening_for_requests(const PrivateApp& app, RunningEarshot& gui) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline && gui.running()) {
        // Without an instance, status says "idle (no Earshot is running)"; and start would
        // launch one of its own, which this test would not know to kill.
        if (app.command("status").out == "idle\n") return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
}

TEST(CrashJournalGui, SigkillMidDictationKeepsTheSavedTranscriptAndTheNextStartReopensIt) {
    const TempDir dir("earshot-crash-journal-gui");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    if (wav.empty()) GTEST_SKIP() << "no spoken test file: " << why;
    const PrivateApp app(dir);
    const std::vector<std::string> gui_args = {"gui", "--model", micro_model_dir().string()};
    const std::string start = "start --input " + shell_quote(wav.string());

    // The journal as it was seen on disk, and when.
    struct Snapshot {
        Clock::time_point at;
        std::string text;
    };
    std::vector<Snapshot> seen;
    std::string before_kill;
    {
        RunningEarshot gui(gui_args, dir.path() / "gui1.err", app.environment());
        ASSERT_TRUE(gui.started());
        ASSERT_TRUE(wait_until_listening_for_requests(app, gui))
            << read_text(dir.path() / "gui1.err");
        const ProcessResult started = app.command(start);
        ASSERT_EQ(started.exit_code, 0) << started.out << started.err;

        // Watch the journal until it holds text, then 2 s more, and kill the app.
        const auto deadline = Clock::now() + std::chrono::seconds(60);
        Clock::time_point first_text{};
        while (Clock::now() < deadline) {
            const fs::path journal = app.journal();
            const std::string text = journal.empty() ? std::string() : read_text(journal);
            seen.push_back({Clock::now(), text});
            if (!text.empty() && first_text == Clock::time_point{}) first_text = Clock::now();
            if (first_text != Clock::time_point{} &&
                Clock::now() >= first_text + std::chrono::seconds(2)) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ASSERT_NE(first_text, Clock::time_point{}) << "nothing was committed to the journal:\n"
                                                   << read_text(dir.path() / "gui1.err");
        ASSERT_TRUE(gui.running()) << "the app ended before the kill";
        const Clock::time_point killed = Clock::now();
        gui.kill();

        for (const auto& snapshot : seen) {
            if (snapshot.at <= killed - std::chrono::seconds(1)) before_kill = snapshot.text;
        }
    }
    ASSERT_FALSE(before_kill.empty());
    const std::string after_kill = read_text(app.journal());
    // Nothing saved a second before the kill is lost, and the file is a whole transcript.
    EXPECT_EQ(after_kill.substr(0, before_kill.size()), before_kill);

    // The next start loads the journal into the Live page: what it saves once it dictates again
    // begins with the killed session's transcript.
    RunningEarshot gui(gui_args, dir.path() / "gui2.err", app.environment());
    ASSERT_TRUE(wait_until_listening_for_requests(app, gui)) << read_text(dir.path() / "gui2.err");
    const ProcessResult started = app.command(start);
    ASSERT_EQ(started.exit_code, 0) << started.out << started.err;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    std::string reopened = read_text(app.journal());
    while (Clock::now() < deadline && reopened.size() <= after_kill.size()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        reopened = read_text(app.journal());
    }
    ASSERT_GT(reopened.size(), after_kill.size()) << "the second session committed nothing";
    EXPECT_EQ(reopened.substr(0, after_kill.size()), after_kill);
    gui.kill();
}

}  // namespace
}  // namespace earshot::test
