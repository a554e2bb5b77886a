// The GUI's dictation through a real (virtual) microphone: when the device goes away mid-session,
// the Live page says why it stopped, keeps what was committed and lets Start run again.
#include <gtest/gtest.h>
#include <signal.h>

#include <QElapsedTimer>
#include <QPushButton>
#include <chrono>
#include <filesystem>
#include <thread>

#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui_controller.h"
#include "gui_fixture.h"
#include "gui_live_bridge.h"
#include "micro_model.h"
#include "virtual_mic.h"

namespace earshot::test {
namespace {

TEST(GuiLiveDevice, ALostMicrophoneIsNamedOnTheLivePage) {
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();  // before PortAudio starts in this process
    ensure_gui_application();
    const TempDir dir("earshot-gui-mic");
    ui::MainWindow window;
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journalFile = QString::fromStdString((dir.path() / "journal.txt").string());
    paths.listDevices = false;
    app::GuiController controller(window, paths);
    ASSERT_TRUE(controller.openModel(QString::fromStdString(micro_model_dir().string()), QString(),
                                     app::GuiController::Remember::no));
    ui::LivePanel* panel = window.livePanel();
    ASSERT_EQ(controller.startLive(QStringLiteral("pulse")), QString());
    ASSERT_TRUE(panel->isRunning());

    // Let audio flow for a moment, then take the device away: stop the PulseAudio daemon.
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 1500) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
    const int pid = mic.daemon_pid();
    ASSERT_GT(pid, 0);
    ASSERT_EQ(::kill(pid, SIGTERM), 0);

    ASSERT_TRUE(wait_for_signal(&controller.live(), &app::LiveBridge::stopped, 30'000))
        << "dictation did not stop after the device went away";
    EXPECT_FALSE(panel->isRunning());
    // Not the plain "Stopped after ..." of a Stop: the device's own error, which names it.
    const QString status = panel->statusText();
    EXPECT_TRUE(status.startsWith(QStringLiteral("Stopped after "))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("\"pulse\""))) << status.toStdString();
    EXPECT_FALSE(controller.live().lastStats().error.empty());
    // Start may be pressed again (it then reports whether a device is there).
    EXPECT_TRUE(panel->startStopButton()->isEnabled());
}

}  // namespace
}  // namespace earshot::test
