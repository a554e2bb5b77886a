// "Type into the focused window" under a real X server (Xvfb): a Qt line edit in another process
// has the focus, the GUI dictates a paced file with the micro model in that mode (started with
// `earshot start --input`), and the field must hold exactly the committed text, by simulated
// typing (XTest) and by clipboard + paste.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QApplication>
#include <QFile>
#include <QKeyEvent>
#include <QLineEdit>
#include <QTimer>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "private_x_server.h"
#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using earshot::test::run_shell;
using earshot::test::shell_quote;

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool has_program(const char* name) {
    return run_shell(std::string("command -v ") + name + " >/dev/null").exit_code == 0;
}

// Holds every paste shortcut for `delay_ms` before the field handles it (and reads the
// clipboard), as a busy application would.
class SlowPaste : public QObject {
public:
    explicit SlowPaste(int delay_ms) : m_delayMs(delay_ms) {}

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::KeyPress &&
            static_cast<QKeyEvent*>(event)->matches(QKeySequence::Paste)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(m_delayMs));
        }
        return QObject::eventFilter(watched, event);
    }

private:
    int m_delayMs;
};

// The text field: a QLineEdit in a child process that takes the focus and writes its text to
// `out` on every change ("ready" beside it once focused); with `paste_delay_ms` it is slow to
// paste.
[[noreturn]] void run_text_field(const std::string& display, const fs::path& out,
                                 int paste_delay_ms = 0) {
    ::setenv("DISPLAY", display.c_str(), 1);
    ::setenv("QT_QPA_PLATFORM", "xcb", 1);
    static int argc = 1;
    static char program[] = "text_field";
    static char* argv[] = {program, nullptr};
    QApplication app(argc, argv);
    QLineEdit field;
    SlowPaste slow(paste_delay_ms);
    if (paste_delay_ms > 0) field.installEventFilter(&slow);
    field.setWindowTitle(QStringLiteral("target field"));
    field.resize(600, 40);
    QObject::connect(&field, &QLineEdit::textChanged, [&out](const QString& text) {
        QFile file(QString::fromStdString(out.string()));
        if (file.open(QIODevice::WriteOnly | QIODevice::Truncate)) file.write(text.toUtf8());
    });
    field.show();
    QTimer::singleShot(500, &field, [&field, &out] {
        field.activateWindow();
        field.setFocus();
        QFile ready(QString::fromStdString(out.string() + ".ready"));
        if (ready.open(QIODevice::WriteOnly)) ready.write("1");
    });
    ::_exit(app.exec());
}

class DesktopTyping : public ::testing::Test {
protected:
    void SetUp() override {
        if (!has_program("Xvfb")) GTEST_SKIP() << "Xvfb is not installed (packaging/setup.sh)";
        char pattern[] = "/tmp/earshot_typing_XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        m_dir = pattern;
        startXvfb();
    }
    void TearDown() override {
        earshot::test::stop_processes(m_pids);  // the GUI and the field first, the X server last
        if (!m_dir.empty()) fs::remove_all(m_dir);
    }

    void startXvfb() {
        m_display = earshot::test::start_private_xvfb(m_pids);
        ASSERT_FALSE(m_display.empty()) << "Xvfb did not start";
    }

    std::string env() const {
        return "DISPLAY=" + m_display +
               " QT_QPA_PLATFORM=xcb XDG_CONFIG_HOME=" + shell_quote(m_dir / "config") +
               " XDG_DATA_HOME=" + shell_quote(m_dir / "data") +
               " EARSHOT_INSTANCE_SOCKET=" + shell_quote(m_dir / "sock") + " ";
    }

    void startGui(const std::string& method, const std::string& extra_settings = "") {
        fs::create_directories(m_dir / "config" / "earshot");
        std::ofstream(m_dir / "config" / "earshot" / "earshot.conf")
            << "[settings]\ntype_into_focused_window=true\ntyping_method=" << method << "\n"
            << extra_settings;
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::setenv("DISPLAY", m_display.c_str(), 1);
            ::setenv("QT_QPA_PLATFORM", "xcb", 1);
            ::setenv("XDG_CONFIG_HOME", (m_dir / "config").c_str(), 1);
            ::setenv("XDG_DATA_HOME", (m_dir / "data").c_str(), 1);
            ::setenv("EARSHOT_INSTANCE_SOCKET", (m_dir / "sock").c_str(), 1);
            ::execl(EARSHOT_EXE, EARSHOT_EXE, "gui", "--model", EARSHOT_MICRO_MODEL_DIR,
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
        m_pids.push_back(pid);
        std::string status;
        for (int i = 0; i < 300 && status != "idle\n"; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (fs::exists(m_dir / "sock")) {
                status = run_shell(env() + shell_quote(EARSHOT_EXE) + " status").out;
            }
        }
        ASSERT_EQ(status, "idle\n") << "the GUI never answered";
    }

    void startField(int paste_delay_ms) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) run_text_field(m_display, m_dir / "field.txt", paste_delay_ms);
        m_pids.push_back(pid);
        for (int i = 0; i < 100 && !fs::exists(m_dir / "field.txt.ready"); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ASSERT_TRUE(fs::exists(m_dir / "field.txt.ready")) << "the text field did not come up";
    }

    // The GUI's committed transcript (its journal), once the session has ended.
    std::string journal() {
        std::error_code none;  // no folder yet: nothing journaled
        for (const auto& entry : fs::recursive_directory_iterator(m_dir / "data", none)) {
            if (entry.path().filename() == "session-transcript.txt") {
                return read_text(entry.path());
            }
        }
        return {};
    }

    fs::path m_dir;
    std::string m_display;
    std::vector<pid_t> m_pids;

    // Dictates the sample with `method` and checks the field against the GUI's transcript.
    // Returns the field's text.
    std::string dictateIntoField(const std::string& method, int paste_delay_ms = 0,
                                 const std::string& extra_settings = "");
};

std::string DesktopTyping::dictateIntoField(const std::string& method, int paste_delay_ms,
                                            const std::string& extra_settings) {
    [&] { ASSERT_NO_FATAL_FAILURE(startGui(method, extra_settings)); }();
    if (HasFatalFailure()) return {};
    [&] { ASSERT_NO_FATAL_FAILURE(startField(paste_delay_ms)); }();
    if (HasFatalFailure()) return {};
    const fs::path wav = fs::path(EARSHOT_TEST_GOLDEN_DIR) / ".." / ".." / "packaging" / "samples" /
                         "please-call-me-tomorrow.wav";
    const auto started =
        run_shell(env() + shell_quote(EARSHOT_EXE) + " start --input " + shell_quote(wav));
    EXPECT_EQ(started.out, "listening\n") << started.err;
    if (started.out != "listening\n") return {};
    // The paced 2.4 s recording ends the session by itself; the journal then holds everything
    // committed, and the field must hold the same.
    std::string committed;
    std::string field;
    for (int i = 0; i < 600; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const auto status = run_shell(env() + shell_quote(EARSHOT_EXE) + " status").out;
        committed = journal();
        field = read_text(m_dir / "field.txt");
        if (status == "idle\n" && !committed.empty() && field == committed) break;
    }
    EXPECT_NE(committed.find("tomorrow"), std::string::npos) << committed;
    EXPECT_EQ(field, committed);
    return field;
}

// Spoken commands through the settings' commands file: "me" takes back the utterance before it
// ("please call"), in the transcript and, with BackSpace keys, in the field it was typed into
// (the micro model commits "please" alone first: it is typed, then erased with six BackSpaces).
TEST_F(DesktopTyping, ScratchedWordsLeaveTheFieldAsTheTranscript) {
    std::ofstream(m_dir / "commands.tsv") << "me\tdelete-last-utterance\n";
    const std::string field =
        dictateIntoField("keys", 0, "commands_file=" + (m_dir / "commands.tsv").string() + "\n");
    EXPECT_EQ(field.find("please"), std::string::npos) << field;
    EXPECT_EQ(field.find("call"), std::string::npos) << field;
    EXPECT_NE(field.find("tomorrow"), std::string::npos) << field;
}

TEST_F(DesktopTyping, SimulatedKeysGiveTheFieldExactlyTheCommittedText) {
    dictateIntoField("keys");
}

TEST_F(DesktopTyping, ClipboardAndPasteGiveTheFieldExactlyTheCommittedText) {
    dictateIntoField("clipboard");
}

// A target that reads the clipboard 1.5 s after the paste shortcut (longer than the 0.7 s the
// text used to stay there): it must still paste each piece, not the user's old clipboard or a
// later piece. A ThreadSanitizer run, which slows every process, lost "please call" this way.
TEST_F(DesktopTyping, ClipboardWaitsForASlowTargetToReadEachPiece) {
    dictateIntoField("clipboard", 1500);
}

}  // namespace
