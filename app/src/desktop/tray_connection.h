// connect_tray(): the tray icon follows the window and its controller (listening, the microphone
// open for the pre-roll while idle) and starts or stops dictation from its menu.
#pragma once

namespace earshot::ui {
class MainWindow;
class TrayIcon;
}  // namespace earshot::ui

namespace earshot::app {

class GuiController;

void connect_tray(ui::TrayIcon& tray, ui::MainWindow& window, GuiController& controller);

}  // namespace earshot::app
