// The GUI's answer to `earshot toggle`, `start` and `stop` arriving on the instance socket: the
// controller's setLiveRunning, and its state as the answer.
#include "desktop/instance_requests.h"

#include "gui/gui_controller.h"

namespace earshot::app {

namespace {

QString state(const GuiController& controller) {
    if (controller.liveRunning()) return QStringLiteral("listening");
    // A start waits for the model being loaded or for the file being transcribed to pause.
    return controller.isStartPending() ? QStringLiteral("starting") : QStringLiteral("idle");
}

}  // namespace

QString answer_instance_request(GuiController& controller, const InstanceRequest& request) {
    const bool running = controller.liveRunning();
    bool wantRunning = running;
    switch (request.action) {
        case InstanceAction::toggle:
            wantRunning = !running;
            break;
        case InstanceAction::start:
            wantRunning = true;
            break;
        case InstanceAction::stop:
            wantRunning = false;
            break;
        case InstanceAction::status:
            return state(controller);
    }
    if (wantRunning && !running) {
        // The input chosen on the Live page, or the file `earshot start --input` names.
        const QString said =
            request.input.isEmpty()
                ? controller.setLiveRunning(true)
                : controller.setLiveRunningOn(QStringLiteral("file:") + request.input);
        if (!controller.liveRunning()) {
            return (controller.isStartPending() ? QStringLiteral("starting: ")
                                                : QStringLiteral("error: ")) +
                   said;
        }
    } else if (!wantRunning && running) {
        controller.setLiveRunning(false);  // what is queued is still heard and committed
        return QStringLiteral("idle");
    }
    return state(controller);
}

}  // namespace earshot::app
