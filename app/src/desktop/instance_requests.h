// The GUI's answer to `earshot toggle`, `start` and `stop` arriving on the instance socket: it
// starts or stops dictation through the controller, as the Live page's Start/Stop button does.
#pragma once

#include <QString>

#include "desktop/instance_server.h"

namespace earshot::app {

class GuiController;

// "listening", "idle", "starting: <what it waits for>" (a start the controller will carry out
// after a file being transcribed pauses at its next window, or once the model being loaded is
// there), or "error: <why dictation could not start>". A status request while such a start
// waits answers "starting".
QString answer_instance_request(GuiController& controller, const InstanceRequest& request);

}  // namespace earshot::app
