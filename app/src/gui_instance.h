// The GUI's answer to `earshot toggle`, `start` and `stop` arriving on the instance socket: it
// drives the Live page as its Start/Stop button would.
#pragma once

#include <QString>

#include "instance_server.h"

namespace earshot::ui {
class MainWindow;
}

namespace earshot::app {

// "listening", "idle", or "error: <why dictation could not start>".
QString answer_instance_request(ui::MainWindow& window, const InstanceRequest& request);

}  // namespace earshot::app
