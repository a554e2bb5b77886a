// GuiController's dictation feature: whether it runs, the one way to start or stop it (for the
// Live page, the tray, the global shortcuts and the instance socket), the wait for a file to
// pause, and LiveBridge's reports to the window.
#include <QLabel>
#include <QStatusBar>
#include <exception>

#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui/files/cross_attention_worker.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/gui_options.h"
#include "gui/inspector/inspector_data.h"
#include "gui/live/live_bridge.h"
#include "gui/status_message.h"

namespace earshot::app {

QString GuiController::startLive(const QString& device) {
    if (!m_model) {
        return tr("No model is loaded.");
    }
    if (m_files->isBusy() && !m_files->isPaused()) {
        return tr("The model is transcribing files; pause them first.");
    }
    LiveOptions options;
    try {
        options = live_options(m_settings, device, m_model->tokenizer);
        // "file:PATH" (`earshot start --input`): that file, paced, instead of the microphone.
        if (device.startsWith(QLatin1String("file:"))) {
            options.input = device.mid(5).toStdString();
            options.device.clear();
        }
        // The checked language and task, suppressed tokens and word alignment heads, as
        // `earshot live` sets them.
        options.streaming = dictation_options(transcription_choice(m_settings), *m_model,
                                              std::move(options.streaming));
    } catch (const std::exception& error) {
        return QString::fromStdString(error.what());
    }
    options.taps = m_liveTaps;  // the inspector's open taps, refreshed at each update
    options.streaming.cross_attention = m_liveMapChoice;  // the inspector's live map
    const QString error = m_live->start(m_model, options);
    if (error.isEmpty()) {
        m_files->setHeld(true);
        m_window.setLiveRunning(true);
        // The pre-roll microphone is dictation's now: the status bar no longer says it is open
        // while idle.
        m_microphoneLabel->hide();
        m_window.livePanel()->setStatusText(device.isEmpty() ? tr("Listening on the default input…")
                                                             : tr("Listening on %1…").arg(device));
    }
    return error;
}

bool GuiController::liveRunning() const { return m_live->isRunning(); }

QString GuiController::setLiveRunning(bool running) {
    if (!running) {
        if (m_startAfterLoad) {
            // Stop before the model came: the start waiting for it is dropped.
            m_startAfterLoad = false;
            m_window.livePanel()->setStatusText(QString());
        }
        if (m_live->isRunning()) {
            m_window.livePanel()->setStatusText(tr("Stopping: hearing what is still queued…"));
            m_live->stop();
        }
        return {};
    }
    return setLiveRunningOn(m_window.livePanel()->selectedDevice());
}

QString GuiController::setLiveRunningOn(const QString& device) {
    if (m_live->isRunning()) {
        return {};
    }
    if (isLoadingModel()) {
        // `earshot start` or a shortcut while the window opens its model: dictation starts as
        // soon as the model is there (startAfterLoad), instead of saying no.
        m_pendingStartDevice = device;
        m_startAfterLoad = true;
        const QString waiting = tr("Starting once the model is loaded…");
        m_window.livePanel()->setStatusText(waiting);
        return waiting;
    }
    if (!m_startRefusal.isEmpty()) {
        return m_startRefusal;
    }
    if (m_crossAttention->isComputingMap()) {
        // The Files page's cross-attention map has the model for a moment; dictation starts when
        // it is done (connectCrossAttention).
        m_pendingStartDevice = device;
        m_startPending = true;
        const QString waiting = tr("Starting once the cross-attention map is computed…");
        m_window.livePanel()->setStatusText(waiting);
        return waiting;
    }
    if (m_files->isBusy() && !m_files->isPaused()) {
        // The file being transcribed pauses at its next window; dictation starts then
        // (FilesWorker::paused), and the files go on when it stops.
        m_pendingStartDevice = device;
        m_startPending = true;
        const QString waiting = tr("Pausing the files after the current window…");
        m_window.livePanel()->setStatusText(waiting);
        m_files->pause();
        return waiting;
    }
    return startLiveOrSay(device);
}

QString GuiController::startLiveOrSay(const QString& device) {
    const QString error = startLive(device);
    if (error.isEmpty()) {
        return {};
    }
    const QString said = tr("Could not start: %1").arg(error);
    m_window.livePanel()->setStatusText(said);
    if (m_files->isPaused()) {
        m_files->resume();  // the files go on
    }
    return said;
}

void GuiController::startAfterLoad() {
    if (!m_startAfterLoad || isLoadingModel()) return;
    m_startAfterLoad = false;
    m_window.livePanel()->setStatusText(QString());
    const QString said = setLiveRunningOn(m_pendingStartDevice);
    if (!said.isEmpty() && !liveRunning() && !m_startPending) {
        m_window.livePanel()->setStatusText(tr("Could not start: %1").arg(said));
    }
}

void GuiController::shortcutPressed() {
    const bool running = liveRunning() || isStartPending();
    switch (m_gesture.press(running, ShortcutGesture::Clock::now())) {
        case ShortcutAction::start:
        case ShortcutAction::stop:
            toggleLiveFromShortcut();
            break;
        case ShortcutAction::none:
            break;
    }
}

void GuiController::shortcutReleased() {
    const bool running = liveRunning() || isStartPending();
    if (m_gesture.release(running, ShortcutGesture::Clock::now()) == ShortcutAction::stop) {
        setLiveRunning(false);  // what is queued is still heard and committed
    }
}

void GuiController::toggleLiveFromShortcut() {
    const bool start = !liveRunning();
    const QString said = setLiveRunning(start);
    if (start && !liveRunning() && !isStartPending() && !said.isEmpty()) {
        m_window.statusBar()->showMessage(said, kStatusMessageMs);
    }
}

void GuiController::connectLive() {
    ui::LivePanel* panel = m_window.livePanel();
    connect(panel, &ui::LivePanel::startRequested, this, &GuiController::setLiveRunningOn);
    connect(panel, &ui::LivePanel::stopRequested, this, [this] { setLiveRunning(false); });
    connect(m_files, &FilesWorker::paused, this, [this] {
        if (!m_startPending) return;
        m_startPending = false;
        startLiveOrSay(m_pendingStartDevice);
        if (m_live->isRunning()) {
            m_window.statusBar()->showMessage(
                tr("The files are paused while you dictate; they go on when you stop."),
                kStatusMessageMs);
        }
    });
    connect(m_live, &LiveBridge::updated, &m_window, &ui::MainWindow::applyLiveUpdate);
    // The heat overlay: each call's share of the last update's engine time, on the entry the
    // inspector shows.
    connect(m_live, &LiveBridge::engineTimings, this, [this](const StepTimings& timings) {
        const QString entry = m_inspector->graphView()->entry();
        if (entry.isEmpty()) return;
        try {
            // An update that did not run the entry shown keeps the heat it has.
            const QHash<QString, double> shares = call_time_shares(entry.toStdString(), timings);
            if (!shares.isEmpty()) m_inspector->setHeat(shares);
        } catch (const std::exception& error) {
            m_window.statusBar()->showMessage(QString::fromStdString(error.what()),
                                              kStatusMessageMs);
        }
    });
    connect(m_live, &LiveBridge::levelChanged, panel, &ui::LivePanel::setLevelDbfs);
    connect(m_live, &LiveBridge::failed, panel,
            [panel](const QString& message) { panel->setStatusText(message); });
    connect(m_live, &LiveBridge::stopped, this, [this, panel] {
        m_window.setLiveRunning(false);
        m_microphoneLabel->setVisible(m_live->idleMicrophoneOpen());
        m_files->resume();  // a pause for dictation ends, and the queue goes on
        const LiveStats& stats = m_live->lastStats();
        // Why it stopped stays on the page: a lost microphone must not read like a normal stop.
        panel->setStatusText(stats.error.empty()
                                 ? tr("Stopped after %1 s of audio.").arg(stats.audio_s, 0, 'f', 1)
                                 : tr("Stopped after %1 s of audio: %2")
                                       .arg(stats.audio_s, 0, 'f', 1)
                                       .arg(QString::fromStdString(stats.error)));
        updateStartAllowed();
    });
}

void GuiController::updateStartAllowed() {
    ui::LivePanel* panel = m_window.livePanel();
    m_startRefusal = isLoadingModel() ? tr("The model is being loaded.")
                     : !m_model       ? tr("No model is loaded: choose one on the Model page.")
                                      : QString();
    panel->setStartAllowed(m_startRefusal.isEmpty(), m_startRefusal);
    updateIdleMicrophone();  // the model came or went
    // While files are transcribed, Start pauses them: say so where the user looks.
    const QString hint = tr("Files are being transcribed: Start pauses them while you dictate.");
    if (m_files->isBusy() && !m_files->isPaused() && !m_live->isRunning() &&
        panel->statusText().isEmpty()) {
        panel->setStatusText(hint);
    } else if (panel->statusText() == hint) {
        panel->setStatusText(QString());
    }
}

}  // namespace earshot::app
