// Desktop integration through the real executable: `earshot --version`, the man page written from
// the command line's definitions, and `earshot toggle` / `start` / `stop` driving a running GUI in
// another process over its local socket (and starting one when none runs).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "cli/man_page.h"
#include "desktop/instance_server.h"
#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using earshot::test::run_earshot;
using earshot::test::run_shell;
using earshot::test::shell_quote;

// Words the micro model knows, spoken by espeak-ng (the sample the package installs).
fs::path sample_wav() {
    return fs::path(EARSHOT_TEST_GOLDEN_DIR) / ".." / ".." / "packaging" / "samples" /
           "please-call-me-tomorrow.wav";
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(DesktopVersion, NamesReleaseBackendsAndEmbeddedModel) {
    const auto result = run_earshot("--version");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::istringstream lines(result.out);
    std::string first, backends, model;
    std::getline(lines, first);
    std::getline(lines, backends);
    std::getline(lines, model);
    EXPECT_TRUE(std::regex_match(first, std::regex(R"(earshot \d+\.\d+\.\d+)"))) << first;
    EXPECT_TRUE(backends.starts_with("backends: CPU")) << backends;
    ASSERT_TRUE(model.starts_with("embedded model: ")) << model;
    const fs::path dir = model.substr(std::string("embedded model: ").size());
    EXPECT_TRUE(fs::is_regular_file(dir / "config.json")) << dir;
    EXPECT_TRUE(fs::equivalent(dir, EARSHOT_MICRO_MODEL_DIR)) << dir;
}

TEST(DesktopManPage, TroffEscapesHyphensBackslashesAndLeadingDots) {
    EXPECT_EQ(earshot::app::troff_escape("--model a\\b"), "\\-\\-model a\\eb");
    EXPECT_EQ(earshot::app::troff_escape(".hidden"), "\\&.hidden");
    EXPECT_EQ(earshot::app::troff_escape("'quote"), "\\&'quote");
}

TEST(DesktopManPage, CoversEveryCommandAndItsOptions) {
    const auto result = run_earshot("man-page");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string& page = result.out;
    EXPECT_TRUE(page.starts_with(".TH EARSHOT 1 ")) << page.substr(0, 80);
    for (const char* command : {"gui", "transcribe", "live", "models", "inspect", "graph", "toggle",
                                "start", "stop", "debug mel"}) {
        EXPECT_NE(page.find(std::string(".SS \"earshot ") + command + "\"\n"), std::string::npos)
            << command;
    }
    // Options as the command line spells them, with the value's type.
    EXPECT_NE(page.find("\\fB\\-\\-model\\fR \\fITEXT\\fR"), std::string::npos);
    EXPECT_NE(page.find("\\fB\\-\\-version\\fR"), std::string::npos);
    // The hidden generator itself is not documented, and `earshot --help` does not list it
    // among the subcommands; its footer says how to read the page from a build tree.
    EXPECT_EQ(page.find("man\\-page\""), std::string::npos);
    const std::string help = run_earshot("--help").out;
    EXPECT_EQ(help.find("\n  man-page"), std::string::npos) << help;
    EXPECT_NE(help.find("`earshot man-page | man -l -`"), std::string::npos) << help;
}

TEST(DesktopInstanceRequest, LinesRoundTripAndUnknownOnesAreRefused) {
    using earshot::app::InstanceAction;
    using earshot::app::InstanceRequest;
    InstanceRequest start{InstanceAction::start, QStringLiteral("/tmp/a b.wav")};
    InstanceRequest parsed;
    ASSERT_TRUE(earshot::app::parse_request(earshot::app::format_request(start), parsed));
    EXPECT_EQ(parsed.action, InstanceAction::start);
    EXPECT_EQ(parsed.input, QStringLiteral("/tmp/a b.wav"));
    ASSERT_TRUE(earshot::app::parse_request(QStringLiteral("stop"), parsed));
    EXPECT_EQ(parsed.action, InstanceAction::stop);
    EXPECT_TRUE(parsed.input.isEmpty());
    EXPECT_FALSE(earshot::app::parse_request(QStringLiteral("explode"), parsed));
    EXPECT_FALSE(earshot::app::parse_request(QStringLiteral("stop\t/tmp/x.wav"), parsed));
}

// A GUI in its own process, offscreen, with private settings, data and socket.
class DesktopToggle : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/earshot_toggle_XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        m_dir = pattern;
        m_socket = m_dir / "instance.sock";
        m_env = "QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=" + shell_quote(m_dir / "config") +
                " XDG_DATA_HOME=" + shell_quote(m_dir / "data") +
                " EARSHOT_INSTANCE_SOCKET=" + shell_quote(m_socket) + " ";
    }
    void TearDown() override {
        for (pid_t pid : m_pids) {
            // Our child, or a GUI `earshot toggle` started detached (not our child).
            ::kill(pid, SIGTERM);
            bool gone = false;
            for (int i = 0; i < 50 && !gone; ++i) {
                gone = ::waitpid(pid, nullptr, WNOHANG) == pid || ::kill(pid, 0) != 0;
                if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            if (!gone) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, nullptr, WNOHANG);
            }
        }
        fs::remove_all(m_dir);
    }

    earshot::test::ProcessResult earshot(const std::string& args) {
        return run_shell(m_env + shell_quote(EARSHOT_EXE) + " " + args);
    }

    void startGui() {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
            ::setenv("XDG_CONFIG_HOME", (m_dir / "config").c_str(), 1);
            ::setenv("XDG_DATA_HOME", (m_dir / "data").c_str(), 1);
            ::setenv("EARSHOT_INSTANCE_SOCKET", m_socket.c_str(), 1);
            ::execl(EARSHOT_EXE, EARSHOT_EXE, "gui", "--model", EARSHOT_MICRO_MODEL_DIR,
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
        m_pids.push_back(pid);
    }

    // The committed transcript the GUI journals, once it holds `text` (or after 60 s).
    std::string waitForJournal(const std::string& text) {
        std::string journal;
        for (int i = 0; i < 600; ++i) {
            std::error_code none;
            for (const auto& entry : fs::recursive_directory_iterator(m_dir / "data", none)) {
                if (entry.path().filename() == "session-transcript.txt") {
                    journal = read_text(entry.path());
                }
            }
            if (journal.find(text) != std::string::npos) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return journal;
    }

    fs::path m_dir;
    fs::path m_socket;
    std::string m_env;
    std::vector<pid_t> m_pids;
};

TEST_F(DesktopToggle, StartsAndStopsDictationInTheRunningInstance) {
    // Nothing runs yet: stop says so and starts nothing.
    auto none = earshot("stop");
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_EQ(none.out, "idle (no Earshot is running)\n");
    EXPECT_FALSE(fs::exists(m_socket));

    startGui();
    std::string status;
    for (int i = 0; i < 300 && status != "idle\n"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (fs::exists(m_socket)) status = earshot("stop").out;
    }
    ASSERT_EQ(status, "idle\n") << "the GUI never answered on " << m_socket;

    // The 2.4 s sentence and 6 s of silence, paced like a microphone: toggled off mid-way.
    const fs::path padded = m_dir / "padded.wav";
    ASSERT_EQ(run_shell("sox " + shell_quote(sample_wav()) + " " + shell_quote(padded) + " pad 0 6")
                  .exit_code,
              0);
    const auto started = earshot("toggle --input " + shell_quote(padded));
    EXPECT_EQ(started.exit_code, 0) << started.err;
    EXPECT_EQ(started.out, "listening\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
    EXPECT_EQ(earshot("status").out, "listening\n");
    const auto stopped = earshot("toggle");
    EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
    EXPECT_EQ(stopped.out, "idle\n");
    // What was queued at the stop is still heard and committed.
    const std::string journal = waitForJournal("tomorrow");
    EXPECT_NE(journal.find("tomorrow"), std::string::npos) << journal;
    EXPECT_EQ(earshot("status").out, "idle\n");
}

// A desktop shortcut pressed while the window is still starting (its model loading, its socket
// not yet listening) reaches that window: no second Earshot, and it dictates once the model is
// there.
TEST_F(DesktopToggle, AStartWhileTheWindowOpensReachesThatWindow) {
    startGui();
    // The window holds its start lock within a moment of starting, well before it listens.
    const fs::path lock = m_socket.string() + ".lock";
    for (int i = 0; i < 100 && !fs::exists(lock); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(fs::exists(lock));
    const auto started = earshot("start --input " + shell_quote(sample_wav()));
    ASSERT_EQ(started.exit_code, 0) << started.err;
    EXPECT_EQ(started.out, "listening\n");
    EXPECT_EQ(started.err.find("started one"), std::string::npos) << started.err;
    const std::string journal = waitForJournal("tomorrow");
    EXPECT_NE(journal.find("tomorrow"), std::string::npos) << journal;
    EXPECT_EQ(earshot("stop").out, "idle\n");
}

TEST_F(DesktopToggle, ToggleWithNoInstanceStartsOneAndDictates) {
    const auto started = earshot("toggle --input " + shell_quote(sample_wav()));
    ASSERT_EQ(started.exit_code, 0) << started.err;
    EXPECT_EQ(started.out, "listening\n");
    std::smatch pid;
    ASSERT_TRUE(std::regex_search(started.err, pid, std::regex(R"(started one \(pid (\d+)\))")))
        << started.err;
    m_pids.push_back(static_cast<pid_t>(std::stoi(pid[1].str())));
    // The 2.4 s recording ends the session by itself.
    const std::string journal = waitForJournal("tomorrow");
    EXPECT_NE(journal.find("tomorrow"), std::string::npos) << journal;
    EXPECT_EQ(earshot("stop").out, "idle\n");
}

}  // namespace
