// One run of the GUI as the command line asks for it: the window, optionally a model and files to
// transcribe first, and either the event loop or a screenshot of one page written to a PNG.
#pragma once

#include <QImage>
#include <QString>
#include <iosfwd>
#include <string>
#include <vector>

namespace earshot::ui {
class MainWindow;
}

namespace earshot::app {

class GuiController;

struct GuiRequest {
    std::string model;                    // empty: remembered choice, then the default model
    std::string vocabulary;               // empty: the model's own tokenizer
    std::string screenshot;               // a PNG path: render and exit instead of running
    std::string view = "live";            // live, files, model, inspector or graph:ENTRY
    std::vector<std::string> transcribe;  // queued on the Files page at start
    std::string backend;                  // auto, cpu or cuda for this run; empty: the setting
    bool hidden = false;                  // start in the tray (the window shows when there is none)
};

// Whether `view` names a page: live, files, model, inspector, or graph:ENTRY (ENTRY not empty).
bool valid_view(const std::string& view);
// Shows the page `view` names (graph:ENTRY: the Inspector on that entry). False for an unknown
// view.
bool show_view(ui::MainWindow& window, const std::string& view);
// Lays the window out and paints it into an image (works on the offscreen platform).
QImage render_window(ui::MainWindow& window);
// Waits, running the event loop, until the files queue is empty; false after `timeout_ms`.
bool wait_for_files(GuiController& controller, int timeout_ms);

// Runs the GUI (or takes the screenshot); returns the exit code. Errors go to `err`.
int run_gui_request(const GuiRequest& request, std::ostream& err);

}  // namespace earshot::app
