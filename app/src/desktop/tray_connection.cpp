// connect_tray(): the tray icon follows the window and its controller (listening, the microphone
// open for the pre-roll while idle) and starts or stops dictation from its menu.
#include "desktop/tray_connection.h"

#include "earshot/ui/main_window.h"
#include "earshot/ui/tray/tray_icon.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"

namespace earshot::app {

void connect_tray(ui::TrayIcon& tray, ui::MainWindow& window, GuiController& controller) {
    QObject::connect(&tray, &ui::TrayIcon::toggleRequested, &controller,
                     [&controller] { controller.setLiveRunning(!controller.liveRunning()); });
    // The window shows what the controller says (MainWindow::setLiveRunning); the tray too.
    QObject::connect(&window, &ui::MainWindow::liveRunningChanged, &tray,
                     &ui::TrayIcon::setListening);
    QObject::connect(&controller.live(), &LiveBridge::idleMicrophoneChanged, &tray,
                     [&tray](bool open, const QString&) { tray.setMicrophoneOpen(open); });
    tray.setListening(controller.liveRunning());
    tray.setMicrophoneOpen(controller.live().idleMicrophoneOpen());
}

}  // namespace earshot::app
