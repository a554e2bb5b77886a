// The global shortcut under a real X server (Xvfb), pressed with xdotool (XTest): the grab fires
// once per press with NumLock and CapsLock on or off, a combination another client holds is
// refused with a clear message, and `earshot gui` with the shortcut in its settings starts and
// stops dictation on the (virtual) microphone when it is pressed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "desktop/x11_global_shortcut.h"
#include "gui_fixture.h"
#include "private_x_server.h"
#include "run_process.h"
#include "virtual_mic.h"

namespace {

namespace fs = std::filesystem;
using earshot::app::X11GlobalShortcut;
using earshot::test::run_shell;
using earshot::test::shell_quote;

bool has_program(const char* name) {
    return run_shell(std::string("command -v ") + name + " >/dev/null").exit_code == 0;
}

void spin_for(int ms) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
}

// A private X server for one test, and the processes started on it.
class XvfbTest : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* program : {"Xvfb", "xdotool"}) {
            if (!has_program(program)) {
                GTEST_SKIP() << program << " is not installed (packaging/setup.sh installs it)";
            }
        }
        char pattern[] = "/tmp/earshot_shortcut_XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        m_dir = pattern;
        m_display = earshot::test::start_private_xvfb(m_pids);
        ASSERT_FALSE(m_display.empty()) << "Xvfb did not start";
    }
    void TearDown() override {
        earshot::test::stop_processes(m_pids);  // the GUI first, the X server last
        if (!m_dir.empty()) fs::remove_all(m_dir);
    }

    // Presses and releases `keys` (xdotool's names) on the test's display.
    void press(const std::string& keys) {
        const auto result = run_shell("DISPLAY=" + m_display + " xdotool key " + keys);
        ASSERT_EQ(result.exit_code, 0) << result.err;
    }

    fs::path m_dir;
    std::string m_display;
    std::vector<pid_t> m_pids;
};

// In this process: X11GlobalShortcut on its own connection to the test's X server.
class GlobalShortcutX11 : public XvfbTest {
protected:
    void SetUp() override {
        XvfbTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        earshot::test::ensure_gui_application();  // the event loop that reads the connection
        const char* previous = std::getenv("DISPLAY");
        m_previousDisplay = previous != nullptr ? previous : "";
        m_hadDisplay = previous != nullptr;
        ::setenv("DISPLAY", m_display.c_str(), 1);
    }
    void TearDown() override {
        if (m_hadDisplay) {
            ::setenv("DISPLAY", m_previousDisplay.c_str(), 1);
        } else {
            ::unsetenv("DISPLAY");
        }
        XvfbTest::TearDown();
    }

    std::string m_previousDisplay;
    bool m_hadDisplay = false;
};

TEST_F(GlobalShortcutX11, FiresOncePerPressWithNumLockAndCapsLockOnOrOff) {
    X11GlobalShortcut shortcut;
    int presses = 0;
    QObject::connect(&shortcut, &X11GlobalShortcut::activated, [&presses] { ++presses; });
    ASSERT_EQ(shortcut.setShortcut(QStringLiteral("Ctrl+Alt+D")), QString());
    EXPECT_TRUE(shortcut.isGrabbed());

    press("ctrl+alt+d");
    spin_for(500);
    EXPECT_EQ(presses, 1);
    // Other combinations of the same key are not taken.
    press("ctrl+d");
    press("alt+d");
    spin_for(300);
    EXPECT_EQ(presses, 1);
    press("Num_Lock");
    press("ctrl+alt+d");
    spin_for(500);
    EXPECT_EQ(presses, 2) << "with NumLock on";
    press("Caps_Lock");
    press("ctrl+alt+d");
    spin_for(500);
    EXPECT_EQ(presses, 3) << "with NumLock and CapsLock on";
    press("Num_Lock");
    press("ctrl+alt+d");
    spin_for(500);
    EXPECT_EQ(presses, 4) << "with CapsLock on";
    press("Caps_Lock");

    // Released: the key reaches nobody here any more.
    EXPECT_EQ(shortcut.setShortcut(QString()), QString());
    EXPECT_FALSE(shortcut.isGrabbed());
    press("ctrl+alt+d");
    spin_for(300);
    EXPECT_EQ(presses, 4);
}

// Push-to-talk's two edges: a held combination is one press however long it is held (X11's
// auto-repeat sends presses only), and letting go is one release.
TEST_F(GlobalShortcutX11, AHeldKeyIsOnePressAndOneRelease) {
    X11GlobalShortcut shortcut;
    int presses = 0;
    int releases = 0;
    QObject::connect(&shortcut, &X11GlobalShortcut::activated, [&presses] { ++presses; });
    QObject::connect(&shortcut, &X11GlobalShortcut::released, [&releases] { ++releases; });
    ASSERT_EQ(shortcut.setShortcut(QStringLiteral("Ctrl+Alt+D")), QString());
    const std::string xdotool = "DISPLAY=" + m_display + " xdotool ";
    ASSERT_EQ(run_shell(xdotool + "keydown ctrl+alt+d").exit_code, 0);
    spin_for(1500);  // past the server's auto-repeat delay
    EXPECT_EQ(presses, 1);
    EXPECT_EQ(releases, 0);
    ASSERT_EQ(run_shell(xdotool + "keyup ctrl+alt+d").exit_code, 0);
    spin_for(500);
    EXPECT_EQ(presses, 1);
    EXPECT_EQ(releases, 1);
    // A tap is a press and a release too.
    press("ctrl+alt+d");
    spin_for(500);
    EXPECT_EQ(presses, 2);
    EXPECT_EQ(releases, 2);
}

TEST_F(GlobalShortcutX11, ACombinationAnotherClientHoldsIsRefusedByName) {
    X11GlobalShortcut holder;  // another X client: its own connection
    ASSERT_EQ(holder.setShortcut(QStringLiteral("Ctrl+Shift+Pause")), QString());
    X11GlobalShortcut second;
    const QString why = second.setShortcut(QStringLiteral("Ctrl+Shift+Pause"));
    EXPECT_EQ(why.toStdString(),
              "The global shortcut Ctrl+Shift+Pause is taken by another program; choose another "
              "in Settings.");
    EXPECT_FALSE(second.isGrabbed());
    // The holder still has it; once it lets go, the second client can take it.
    int held = 0;
    QObject::connect(&holder, &X11GlobalShortcut::activated, [&held] { ++held; });
    press("ctrl+shift+Pause");
    spin_for(500);
    EXPECT_EQ(held, 1);
    holder.setShortcut(QString());
    EXPECT_EQ(second.setShortcut(QStringLiteral("Ctrl+Shift+Pause")), QString());
    EXPECT_TRUE(second.isGrabbed());
}

TEST_F(GlobalShortcutX11, KeysX11CannotGrabAndNoDisplayAreExplained) {
    X11GlobalShortcut shortcut;
    EXPECT_EQ(shortcut.setShortcut(QStringLiteral("Ctrl+VolumeUp")).toStdString(),
              "The global shortcut Ctrl+VolumeUp uses a key X11 cannot grab here.");
    ::unsetenv("DISPLAY");
    X11GlobalShortcut headless;
    const QString why = headless.setShortcut(QStringLiteral("Ctrl+Alt+D"));
    EXPECT_TRUE(why.contains(QStringLiteral("needs an X11 display"))) << why.toStdString();
    EXPECT_FALSE(headless.isGrabbed());
}

// The real executable on the X server, with the shortcut in its settings and the virtual
// microphone as its default input.
class GlobalShortcutLiveDevice : public XvfbTest {
protected:
    // Starts `earshot gui` on the micro model with Ctrl+Alt+D as its shortcut (and `settings`,
    // lines of the settings group); returns the environment its commands need.
    std::string startApp(const earshot::test::VirtualMic& mic, const std::string& settings) {
        fs::create_directories(m_dir / "config" / "earshot");
        std::ofstream(m_dir / "config" / "earshot" / "earshot.conf")
            << "[settings]\nglobal_shortcut=Ctrl+Alt+D\npre_roll_seconds=0.5\n"
            << settings;
        const std::string env =
            mic.shell_environment() + "DISPLAY=" + m_display +
            " QT_QPA_PLATFORM=xcb XDG_CONFIG_HOME=" + shell_quote(m_dir / "config") +
            " XDG_DATA_HOME=" + shell_quote(m_dir / "data") +
            " EARSHOT_INSTANCE_SOCKET=" + shell_quote(m_dir / "sock") + " ";
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl("/bin/sh", "sh", "-c",
                    ("exec env " + env + shell_quote(EARSHOT_EXE) + " gui --model " +
                     shell_quote(EARSHOT_MICRO_MODEL_DIR) + " >" + shell_quote(m_dir / "gui.log") +
                     " 2>&1")
                        .c_str(),
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
        if (pid > 0) m_pids.push_back(pid);
        return env;
    }
    // Whether the app answers `earshot status` with idle within 30 s.
    bool waitUntilIdle(const std::string& env) {
        for (int i = 0; i < 300; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (fs::exists(m_dir / "sock") &&
                run_shell(env + shell_quote(EARSHOT_EXE) + " status").out == "idle\n") {
                return true;
            }
        }
        return false;
    }
};

TEST_F(GlobalShortcutLiveDevice, ThePressedShortcutStartsAndStopsDictationInTheApp) {
    earshot::test::VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    const std::string env = startApp(mic, "");
    auto status = [&] { return run_shell(env + shell_quote(EARSHOT_EXE) + " status").out; };
    ASSERT_TRUE(waitUntilIdle(env)) << "the GUI never answered";
    std::string now = "idle\n";

    press("ctrl+alt+d");
    for (int i = 0; i < 50 && now != "listening\n"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        now = status();
    }
    EXPECT_EQ(now, "listening\n") << "the shortcut did not start dictation";
    press("ctrl+alt+d");
    for (int i = 0; i < 100 && now != "idle\n"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        now = status();
    }
    EXPECT_EQ(now, "idle\n") << "the shortcut did not stop dictation";
}

// Hold to talk in the real app: dictation runs while the shortcut is held (xdotool keydown /
// keyup on the X server), the words said into the virtual microphone are committed, and the last
// word, said just before the release, is not cut. Prints the latencies it measures.
TEST_F(GlobalShortcutLiveDevice, HoldToTalkDictatesWhileHeldAndKeepsTheLastWord) {
    earshot::test::VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    const fs::path speech = fs::path(EARSHOT_TEST_GOLDEN_DIR) / ".." / ".." / "packaging" /
                            "samples" / "please-call-me-tomorrow.wav";
    ASSERT_TRUE(fs::exists(speech)) << speech;
    const std::string env = startApp(mic, "shortcut_mode=hold\n");
    auto status = [&] { return run_shell(env + shell_quote(EARSHOT_EXE) + " status").out; };
    auto journal = [&] {
        std::string text;
        std::error_code none;
        for (const auto& entry : fs::recursive_directory_iterator(m_dir / "data", none)) {
            if (entry.path().filename() == "session-transcript.txt") {
                std::ifstream in(entry.path());
                text.assign(std::istreambuf_iterator<char>(in), {});
            }
        }
        return text;
    };
    ASSERT_TRUE(waitUntilIdle(env));
    std::string now = "idle\n";

    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::duration d) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    };
    const std::string xdotool = "DISPLAY=" + m_display + " xdotool ";
    const Clock::time_point pressed = Clock::now();
    ASSERT_EQ(run_shell(xdotool + "keydown ctrl+alt+d").exit_code, 0);
    for (int i = 0; i < 100 && now != "listening\n"; ++i) {
        now = status();
        if (now != "listening\n") std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const Clock::time_point listening = Clock::now();
    ASSERT_EQ(now, "listening\n") << "holding the shortcut did not start dictation";
    ASSERT_TRUE(mic.play_in_background(speech));
    Clock::time_point firstWord{};
    while (Clock::now() - listening < std::chrono::milliseconds(2900)) {
        if (firstWord == Clock::time_point{} && !journal().empty()) firstWord = Clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Still held: still listening. The recording (2.4 s) has just ended; let go now.
    EXPECT_EQ(status(), "listening\n");
    const Clock::time_point released = Clock::now();
    ASSERT_EQ(run_shell(xdotool + "keyup ctrl+alt+d").exit_code, 0);
    Clock::time_point lastCommit{};
    for (int i = 0; i < 1000; ++i) {
        if (journal().find("tomorrow") != std::string::npos) {
            lastCommit = Clock::now();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_NE(lastCommit, Clock::time_point{}) << "the last word was lost: " << journal();
    for (int i = 0; i < 100 && now != "idle\n"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        now = status();
    }
    EXPECT_EQ(now, "idle\n") << "letting go did not stop dictation";
    EXPECT_NE(journal().find("call"), std::string::npos) << journal();
    std::cout << "push-to-talk: press to listening " << ms(listening - pressed)
              << " ms; press to first committed word "
              << (firstWord == Clock::time_point{} ? -1 : ms(firstWord - pressed))
              << " ms (speech from " << ms(listening - pressed) << " ms); release to last commit "
              << ms(lastCommit - released) << " ms\n";
}

}  // namespace
