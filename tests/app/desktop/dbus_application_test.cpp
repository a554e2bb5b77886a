// Earshot's D-Bus interface through the real executable on a private session bus: gdbus calls
// org.freedesktop.Application's actions (ToggleDictation, StartDictation, StopDictation) and sees
// dictation start and stop; `gdbus monitor` receives org.earshot.Earshot.Dictation's Committed and
// Retracted signals while a synthesized file is dictated with a spoken-command table, and they
// add up to the journaled transcript; bad calls get one clear D-Bus error.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QProcess>
#include <QProcessEnvironment>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fake_portal.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::test::PrivateBus;
using earshot::test::ProcessResult;
using earshot::test::run_shell;
using earshot::test::shell_quote;
using earshot::test::TempDir;

// Said with 1.5 s between the sentences; the table's phrases use the micro model's words.
const std::vector<std::vector<std::string>> kSaid = {
    {"call", "the", "doctor", "today", "full", "stop"},
    {"send", "the", "report", "forget", "that"},
};
constexpr const char* kTable =
    "full stop\tinsert:.\n"
    "forget that\tdelete-last-utterance\n";

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The string after `at` in GVariant's text format ('...' or "...", with backslash escapes).
std::string gvariant_string(const std::string& line, size_t at) {
    std::string text;
    const char quote = line[at];
    for (size_t i = at + 1; i < line.size() && line[i] != quote; ++i) {
        if (line[i] != '\\' || i + 1 == line.size()) {
            text += line[i];
            continue;
        }
        const char escaped = line[++i];
        text += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
    }
    return text;
}

// The transcript the signals describe: Retracted(u) takes back that many characters (here all
// ASCII), Committed(s) appends. Also counts each.
struct Signalled {
    std::string text;
    int committed = 0;
    int retracted_chars = 0;
};
Signalled replay_signals(const std::string& monitor) {
    Signalled result;
    std::istringstream lines(monitor);
    std::string line;
    const std::string committed = "org.earshot.Earshot.Dictation.Committed (";
    const std::string retracted = "org.earshot.Earshot.Dictation.Retracted (uint32 ";
    while (std::getline(lines, line)) {
        if (const size_t at = line.find(committed); at != std::string::npos) {
            result.text += gvariant_string(line, at + committed.size());
            ++result.committed;
        } else if (const size_t at2 = line.find(retracted); at2 != std::string::npos) {
            const size_t chars = std::stoul(line.substr(at2 + retracted.size()));
            result.retracted_chars += static_cast<int>(chars);
            result.text.erase(result.text.size() - std::min(chars, result.text.size()));
        }
    }
    return result;
}

class DbusApplicationProcess : public ::testing::Test {
protected:
    void SetUp() override {
        earshot::test::ensure_gui_application();  // QProcess's notifiers
        if (!m_bus.available()) GTEST_SKIP() << m_bus.error();
        ASSERT_EQ(run_shell("command -v gdbus && command -v espeak-ng").exit_code, 0)
            << "gdbus and espeak-ng are needed (packaging/setup.sh installs them)";
        earshot::test::SpeechOptions speech;
        speech.whole_sentences = true;
        speech.sentence_gap_s = 1.5;
        std::string why;
        const auto audio = earshot::test::speak_sentences(kSaid, speech, &why);
        ASSERT_TRUE(audio) << why;
        m_wav = m_dir.path() / "said.wav";
        earshot::test::write_wav_pcm16(m_wav, audio->samples);
        std::ofstream(m_dir.path() / "commands.tsv") << kTable;
        fs::create_directories(m_dir.path() / "config" / "earshot");
        std::ofstream(m_dir.path() / "config" / "earshot" / "earshot.conf")
            << "[settings]\ncommands_file=" << (m_dir.path() / "commands.tsv").string() << "\n";
        m_env = "DBUS_SESSION_BUS_ADDRESS=" + shell_quote(m_bus.address().toStdString()) + " ";
    }
    void TearDown() override {
        if (m_monitor.state() != QProcess::NotRunning) {
            m_monitor.terminate();
            m_monitor.waitForFinished(3000);
        }
        if (m_gui > 0) {
            ::kill(m_gui, SIGTERM);
            for (int i = 0; i < 50 && ::waitpid(m_gui, nullptr, WNOHANG) != m_gui; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            ::kill(m_gui, SIGKILL);
            ::waitpid(m_gui, nullptr, WNOHANG);
        }
    }

    void startGui() {
        const std::string address = m_bus.address().toStdString();
        m_gui = ::fork();
        ASSERT_GE(m_gui, 0);
        if (m_gui == 0) {
            ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
            ::setenv("XDG_CONFIG_HOME", (m_dir.path() / "config").c_str(), 1);
            ::setenv("XDG_DATA_HOME", (m_dir.path() / "data").c_str(), 1);
            ::setenv("EARSHOT_INSTANCE_SOCKET", (m_dir.path() / "instance.sock").c_str(), 1);
            ::setenv("DBUS_SESSION_BUS_ADDRESS", address.c_str(), 1);
            ::execl(EARSHOT_EXE, EARSHOT_EXE, "gui", "--model", EARSHOT_MICRO_MODEL_DIR,
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
    }

    // gdbus call on Earshot's object: `method` and its arguments in GVariant text.
    ProcessResult call(const std::string& method_and_args) const {
        return run_shell(m_env +
                         "gdbus call --session --dest org.earshot.Earshot --object-path "
                         "/org/earshot/Earshot --method " +
                         method_and_args);
    }
    std::string state() const {
        return call("org.freedesktop.DBus.Properties.Get org.earshot.Earshot.Dictation State").out;
    }
    bool waitForState(const std::string& wanted, int timeout_ms) const {
        for (int waited = 0; waited < timeout_ms; waited += 100) {
            if (state() == "(<'" + wanted + "'>,)\n") return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
    std::string action(const std::string& name, const std::string& parameter) const {
        return "org.freedesktop.Application.ActivateAction " + name + " " + shell_quote(parameter) +
               " {}";
    }

    PrivateBus m_bus;
    TempDir m_dir{"earshot-dbus-app"};
    fs::path m_wav;
    std::string m_env;
    pid_t m_gui = -1;
    QProcess m_monitor;
};

TEST_F(DbusApplicationProcess, ActionsDriveDictationAndEachCommitIsSignalled) {
    startGui();
    ASSERT_TRUE(waitForState("idle", 30000)) << state();

    // Every signal the app sends, line-buffered as it comes.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), m_bus.address());
    m_monitor.setProcessEnvironment(env);
    m_monitor.start(QStringLiteral("stdbuf"),
                    {QStringLiteral("-oL"), QStringLiteral("gdbus"), QStringLiteral("monitor"),
                     QStringLiteral("--session"), QStringLiteral("--dest"),
                     QStringLiteral("org.earshot.Earshot")});
    ASSERT_TRUE(m_monitor.waitForStarted(5000));
    std::string monitored;
    for (int i = 0; i < 50 && monitored.find("owned by") == std::string::npos; ++i) {
        m_monitor.waitForReadyRead(100);
        monitored += m_monitor.readAll().toStdString();
    }

    // StartDictation on the synthesized file (the parameter `earshot start --input` gives).
    const ProcessResult started = call(action("StartDictation", "[<'" + m_wav.string() + "'>]"));
    ASSERT_EQ(started.exit_code, 0) << started.err;
    EXPECT_EQ(started.out, "()\n");
    // "starting" while the model still loads, then listening.
    EXPECT_TRUE(waitForState("listening", 30000)) << state();
    // The file's end ends the session.
    ASSERT_TRUE(waitForState("idle", 60000)) << state();
    for (int i = 0; i < 20; ++i) {
        m_monitor.waitForReadyRead(100);
        monitored += m_monitor.readAll().toStdString();
    }
    const Signalled signalled = replay_signals(monitored);
    std::cout << "signalled: " << signalled.committed << " commits, " << signalled.retracted_chars
              << " characters retracted: \"" << signalled.text << "\"\n";
    EXPECT_GE(signalled.committed, 2);
    EXPECT_GT(signalled.retracted_chars, 0) << monitored;  // "forget that" took back the report
    EXPECT_EQ(signalled.text.rfind("call the doctor today.", 0), 0u) << signalled.text;
    EXPECT_EQ(signalled.text.find("report"), std::string::npos) << signalled.text;
    // The signals add up to the transcript the window journals, under the data root.
    const fs::path journal = m_dir.path() / "data" / "earshot" / "session-transcript.txt";
    std::string journaled;
    for (int i = 0; i < 50 && journaled != signalled.text; ++i) {
        journaled = read_text(journal);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(journaled, signalled.text);

    // ToggleDictation starts, ToggleDictation stops; StopDictation when idle is no error.
    ProcessResult toggled = call(action("ToggleDictation", "[<'" + m_wav.string() + "'>]"));
    ASSERT_EQ(toggled.exit_code, 0) << toggled.err;
    EXPECT_TRUE(waitForState("listening", 10000)) << state();
    toggled = call(action("ToggleDictation", "[]"));
    ASSERT_EQ(toggled.exit_code, 0) << toggled.err;
    EXPECT_TRUE(waitForState("idle", 30000)) << state();
    EXPECT_EQ(call(action("StopDictation", "[]")).exit_code, 0);
    EXPECT_EQ(call("org.freedesktop.Application.Activate {}").out, "()\n");

    // Open queues the file on the Files page: its result is kept under the data root.
    const ProcessResult opened =
        call("org.freedesktop.Application.Open \"['file://" + m_wav.string() + "']\" {}");
    ASSERT_EQ(opened.exit_code, 0) << opened.err;
    EXPECT_EQ(opened.out, "()\n");
    const fs::path results = m_dir.path() / "data" / "earshot" / "file-results";
    std::string result;
    for (int i = 0; i < 600 && result.empty(); ++i) {
        std::error_code none;
        for (const auto& entry : fs::directory_iterator(results, none)) {
            if (entry.path().extension() == ".json") result = read_text(entry.path());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_NE(result.find("doctor"), std::string::npos) << result.substr(0, 400);
}

TEST_F(DbusApplicationProcess, BadCallsGetOneClearError) {
    startGui();
    ASSERT_TRUE(waitForState("idle", 30000)) << state();
    const struct {
        std::string call;
        std::string error;
    } cases[] = {
        {action("Explode", "[]"),
         "org.freedesktop.DBus.Error.InvalidArgs: unknown action \"Explode\" (ToggleDictation, "
         "StartDictation or StopDictation)"},
        {action("StopDictation", "[<'x.wav'>]"),
         "org.freedesktop.DBus.Error.InvalidArgs: StopDictation's parameter is the path of an "
         "audio file (a string)"},
        {action("StartDictation", "[<uint32 3>]"),
         "org.freedesktop.DBus.Error.InvalidArgs: StartDictation's parameter is the path of an "
         "audio file (a string)"},
        {action("StartDictation", "[<'/nonexistent/said.wav'>]"),
         "org.freedesktop.DBus.Error.InvalidArgs: no such file: /nonexistent/said.wav"},
        {"org.freedesktop.Application.Open \"['https://example.com/a.wav']\" {}",
         "org.freedesktop.DBus.Error.InvalidArgs: Earshot opens local files only, not "
         "https://example.com/a.wav"},
    };
    for (const auto& c : cases) {
        const ProcessResult r = call(c.call);
        EXPECT_NE(r.exit_code, 0) << c.call;
        EXPECT_NE(r.err.find(c.error), std::string::npos) << c.call << "\n" << r.err;
    }
    EXPECT_EQ(state(), "(<'idle'>,)\n");  // nothing started

    // A second window cannot take the name: it says so once and keeps running.
    const ProcessResult second = run_shell(
        m_env + "QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=" +
        shell_quote((m_dir.path() / "config").string()) +
        " XDG_DATA_HOME=" + shell_quote((m_dir.path() / "data2").string()) +
        " EARSHOT_INSTANCE_SOCKET=" + shell_quote((m_dir.path() / "second.sock").string()) +
        " timeout 8 " + shell_quote(EARSHOT_EXE) + " gui --model " +
        shell_quote(EARSHOT_MICRO_MODEL_DIR));
    EXPECT_NE(second.err.find("earshot: another Earshot owns org.earshot.Earshot on the session "
                              "bus; its D-Bus interface will not reach this window"),
              std::string::npos)
        << second.err;
}

}  // namespace
