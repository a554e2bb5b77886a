// The GUI's answer to `earshot toggle`, `start` and `stop` arriving on the instance socket: it
// drives the Live page as its Start/Stop button would.
#include "desktop/instance_requests.h"

#include <QPushButton>

#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"

namespace earshot::app {

namespace {

QString state(const ui::LivePanel& panel) {
    return panel.isRunning() ? QStringLiteral("listening") : QStringLiteral("idle");
}

}  // namespace

QString answer_instance_request(ui::MainWindow& window, const InstanceRequest& request,
                                const std::function<bool()>& startPending) {
    ui::LivePanel* panel = window.livePanel();
    bool wantRunning = panel->isRunning();
    switch (request.action) {
        case InstanceAction::toggle:
            wantRunning = !panel->isRunning();
            break;
        case InstanceAction::start:
            wantRunning = true;
            break;
        case InstanceAction::stop:
            wantRunning = false;
            break;
        case InstanceAction::status:
            return state(*panel);
    }
    if (wantRunning && !panel->isRunning()) {
        if (!panel->startAllowed()) {
            return QStringLiteral("error: ") + panel->startStopButton()->toolTip();
        }
        if (request.input.isEmpty()) {
            panel->toggle();  // the device chosen on the page
        } else {
            Q_EMIT panel->startRequested(QStringLiteral("file:") + request.input);
        }
        if (!panel->isRunning()) {
            if (startPending && startPending()) {
                return QStringLiteral("starting: ") + panel->statusText();
            }
            return QStringLiteral("error: ") + panel->statusText();
        }
    } else if (!wantRunning && panel->isRunning()) {
        panel->toggle();  // stops: what is queued is still heard and committed
        return QStringLiteral("idle");
    }
    return state(*panel);
}

}  // namespace earshot::app
