// connect_tray(): the tray icon follows the window and its controller (listening, the microphone
// open for the pre-roll while idle) and starts or stops dictation from its menu.
#include "desktop/tray_connection.h"

#include <QAction>

#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/tray/tray_icon.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"

namespace earshot::app {

void connect_tray(ui::TrayIcon& tray, ui::MainWindow& window, GuiController& controller) {
    QObject::connect(&tray, &ui::TrayIcon::toggleRequested, window.livePanel(),
                     &ui::LivePanel::toggle);
    QObject::connect(window.toggleDictationAction(), &QAction::changed, &tray,
                     [&tray, &window] { tray.setListening(window.livePanel()->isRunning()); });
    QObject::connect(&controller.live(), &LiveBridge::idleMicrophoneChanged, &tray,
                     [&tray](bool open, const QString&) { tray.setMicrophoneOpen(open); });
    tray.setListening(window.livePanel()->isRunning());
    tray.setMicrophoneOpen(controller.live().idleMicrophoneOpen());
}

}  // namespace earshot::app
