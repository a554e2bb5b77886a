// The GUI's answer to `earshot toggle`, `start` and `stop` arriving on the instance socket: it
// drives the Live page as its Start/Stop button would.
#pragma once

#include <QString>
#include <functional>

#include "desktop/instance_server.h"

namespace earshot::ui {
class MainWindow;
}

namespace earshot::app {

// "listening", "idle", "starting: <what it waits for>" (a start the controller will carry out:
// `startPending` says so, after a file being transcribed pauses at its next window), or
// "error: <why dictation could not start>".
QString answer_instance_request(ui::MainWindow& window, const InstanceRequest& request,
                                const std::function<bool()>& startPending = {});

}  // namespace earshot::app
