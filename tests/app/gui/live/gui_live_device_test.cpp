// The GUI's dictation through a real (virtual) microphone: when the device goes away mid-session,
// the Live page says why it stopped, keeps what was committed and lets Start run again; the
// microphone picked is the one selected after a restart.
#include <gtest/gtest.h>
#include <signal.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <chrono>
#include <filesystem>
#include <thread>

#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "virtual_mic.h"

namespace earshot::test {
namespace {

// The app's settings and journal in `dir`; the Live page lists the devices when `listDevices`.
app::GuiPaths paths_in(const TempDir& dir, bool listDevices) {
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journalFile = QString::fromStdString((dir.path() / "journal.txt").string());
    paths.listDevices = listDevices;
    return paths;
}

TEST(GuiLiveDevice, ALostMicrophoneIsNamedOnTheLivePage) {
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();  // before PortAudio starts in this process
    ensure_gui_application();
    const TempDir dir("earshot-gui-mic");
    ui::MainWindow window;
    app::GuiPaths paths = paths_in(dir, /*listDevices=*/false);
    app::GuiController controller(window, paths);
    ASSERT_TRUE(open_model_and_wait(controller, QString::fromStdString(micro_model_dir().string()),
                                    QString(), app::GuiController::Remember::no));
    ui::LivePanel* panel = window.livePanel();
    ASSERT_EQ(controller.startLive(QStringLiteral("pulse")), QString());
    ASSERT_TRUE(panel->showsRunning());

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
    EXPECT_FALSE(panel->showsRunning());
    // Not the plain "Stopped after ..." of a Stop: the device's own error, which names it.
    const QString status = panel->statusText();
    EXPECT_TRUE(status.startsWith(QStringLiteral("Stopped after "))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("\"pulse\""))) << status.toStdString();
    EXPECT_FALSE(controller.live().lastStats().error.empty());
    // Start may be pressed again (it then reports whether a device is there).
    EXPECT_TRUE(panel->startStopButton()->isEnabled());
}

// The microphone picked on the Live page is the one selected after a restart (before, it came
// back on "Default input"); a remembered one that is gone leaves the default selected.
TEST(GuiLiveDevice, TheChosenMicrophoneIsRememberedAcrossRestarts) {
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();  // before PortAudio starts in this process
    ensure_gui_application();
    const TempDir dir("earshot-gui-mic-choice");
    app::GuiPaths paths = paths_in(dir, /*listDevices=*/true);
    {
        ui::MainWindow window;
        app::GuiController controller(window, paths);
        QComboBox* picker = window.livePanel()->devicePicker();
        EXPECT_EQ(picker->currentIndex(), 0);  // "Default input" on a first start
        const int pulse = picker->findData(QStringLiteral("pulse"));
        ASSERT_GT(pulse, 0) << "the virtual microphone's ALSA device is not listed";
        picker->setCurrentIndex(pulse);
        Q_EMIT picker->activated(pulse);  // as a person's choice reports it
    }
    {
        ui::MainWindow window;
        app::GuiController controller(window, paths);
        EXPECT_EQ(window.livePanel()->selectedDevice(), QStringLiteral("pulse"));
    }
    QSettings(paths.settingsFile, QSettings::IniFormat)
        .setValue(QStringLiteral("live/input_device"), QStringLiteral("a microphone not here"));
    ui::MainWindow window;
    app::GuiController controller(window, paths);
    EXPECT_EQ(window.livePanel()->selectedDevice(), QString());
}

// The status bar's "Mic open (pre-roll)" is for an idle microphone: it goes while dictation has
// the microphone and comes back after (before, it stayed on while listening).
TEST(GuiLiveDevice, ThePreRollLabelIsNotShownWhileListening) {
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();  // before PortAudio starts in this process
    ensure_gui_application();
    const TempDir dir("earshot-gui-mic-label");
    app::GuiPaths paths = paths_in(dir, /*listDevices=*/true);
    ui::MainWindow window;
    app::GuiController controller(window, paths);
    ASSERT_TRUE(open_model_and_wait(controller, QString::fromStdString(micro_model_dir().string()),
                                    QString(), app::GuiController::Remember::no));
    auto* label = window.findChild<QLabel*>(QStringLiteral("microphoneLabel"));
    ASSERT_NE(label, nullptr);
    ASSERT_TRUE(controller.live().idleMicrophoneOpen()) << "the pre-roll microphone did not open";
    EXPECT_FALSE(label->isHidden());
    EXPECT_EQ(label->text(), QStringLiteral("Mic open (pre-roll)"));
    // On the idle microphone's own device, which dictation takes over with its pre-roll.
    ASSERT_EQ(controller.startLive(window.livePanel()->selectedDevice()), QString());
    EXPECT_TRUE(label->isHidden());
    controller.live().stop();
    ASSERT_TRUE(wait_for_signal(&controller.live(), &app::LiveBridge::stopped, 30'000));
    EXPECT_EQ(label->isHidden(), !controller.live().idleMicrophoneOpen());
}

}  // namespace
}  // namespace earshot::test
