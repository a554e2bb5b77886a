// The tray's third state: the microphone open for the pre-roll while idle, between idle and
// listening, in the tray's icon (an amber ring), tooltip and menu, following the app's
// controller as connect_tray() wires it. (A file of its own, after the tests that fork a Qt
// process without exec: the controller starts threads.)
#include <gtest/gtest.h>

#include <QAction>
#include <QColor>
#include <QImage>
#include <QMenu>

#include "desktop/tray_connection.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/tray/tray_icon.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui_fixture.h"
#include "temp_dir.h"

namespace {

using earshot::ui::TrayState;

// The app icon's pixels at 32 px in `state`.
QImage icon_pixels(TrayState state) {
    return earshot::ui::TrayIcon::stateIcon(state).pixmap(32, 32).toImage().convertToFormat(
        QImage::Format_ARGB32);
}

TEST(TrayMicrophoneState, IsAThirdStateBetweenIdleAndListeningFollowingTheController) {
    earshot::test::ensure_gui_application();
    const earshot::test::TempDir dir("earshot-tray");
    earshot::ui::MainWindow window;
    earshot::app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journal = false;
    paths.listDevices = false;  // no real microphone: the bridge's report stands in for it
    paths.keepLayout = false;
    earshot::app::GuiController controller(window, paths);
    earshot::ui::TrayIcon tray(&window);
    earshot::app::connect_tray(tray, window, controller);
    EXPECT_EQ(tray.state(), TrayState::idle);
    EXPECT_EQ(tray.toolTip(), QStringLiteral("Earshot: idle"));

    // The three icons differ from each other, and the current icon is the state's.
    const QImage idle = icon_pixels(TrayState::idle);
    const QImage open = icon_pixels(TrayState::microphoneOpen);
    const QImage listening = icon_pixels(TrayState::listening);
    EXPECT_NE(idle, open);
    EXPECT_NE(idle, listening);
    EXPECT_NE(open, listening);
    // The open microphone is an amber ring: amber on its edge, not filled in its middle.
    const double dot = 32 * 0.45;
    const int middle = static_cast<int>(32 - dot / 2);
    const QColor edge = open.pixelColor(middle, 31);
    EXPECT_GT(edge.red(), 200) << edge.name().toStdString();
    EXPECT_GT(edge.green(), 110);
    EXPECT_LT(edge.blue(), 90);
    EXPECT_EQ(open.pixelColor(middle, middle), idle.pixelColor(middle, middle));
    EXPECT_NE(listening.pixelColor(middle, middle), idle.pixelColor(middle, middle));

    Q_EMIT controller.live().idleMicrophoneChanged(true, QStringLiteral("Microphone open"));
    EXPECT_EQ(tray.state(), TrayState::microphoneOpen);
    EXPECT_EQ(tray.toolTip(), QStringLiteral("Earshot: idle, microphone open (pre-roll)"));
    EXPECT_EQ(tray.statusAction()->text(), QStringLiteral("Idle, microphone open (pre-roll)"));
    EXPECT_EQ(tray.currentIcon().pixmap(32, 32).toImage().convertToFormat(QImage::Format_ARGB32),
              open);

    window.setLiveRunning(true);  // as the controller does when dictation starts
    EXPECT_EQ(tray.state(), TrayState::listening);
    EXPECT_EQ(tray.toolTip(), QStringLiteral("Earshot: listening"));
    EXPECT_EQ(tray.currentIcon().pixmap(32, 32).toImage().convertToFormat(QImage::Format_ARGB32),
              listening);
    window.setLiveRunning(false);  // idle again, the pre-roll's microphone still open
    EXPECT_EQ(tray.state(), TrayState::microphoneOpen);
    Q_EMIT controller.live().idleMicrophoneChanged(false, QStringLiteral("Microphone closed"));
    EXPECT_EQ(tray.state(), TrayState::idle);
    EXPECT_EQ(tray.toolTip(), QStringLiteral("Earshot: idle"));
    EXPECT_EQ(tray.currentIcon().pixmap(32, 32).toImage().convertToFormat(QImage::Format_ARGB32),
              idle);
}

}  // namespace
