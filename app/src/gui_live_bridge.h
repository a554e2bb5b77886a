// LiveBridge: the GUI's side of live dictation. Owns a LiveController, re-emits its updates (which
// arrive on the engine thread) as queued signals carrying value types, with the engine's timed
// steps of each update (the backend profiles while dictation runs), polls the input level at
// 20 Hz for the meter, and stops without blocking the UI.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <thread>
#include <vector>

#include "earshot/app/live_controller.h"
#include "earshot/app/loaded_model.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/ui/live/live_types.h"

class QTimer;

namespace earshot::app {

// The engine's timed steps of one update (listen, prefill, steps), for the inspector's heat.
using StepTimings = std::vector<backend::StepTiming>;

// One controller update as the live panel shows it: text, engine time, delay after the audio it
// heard (wall_s - audio_end_s) and the running loss counters.
ui::LiveTextUpdate to_text_update(const LiveUpdate& update);

class LiveBridge : public QObject {
    Q_OBJECT

public:
    static constexpr int kLevelPollMs = 50;  // the meter's refresh: 20 Hz

    explicit LiveBridge(QObject* parent = nullptr);
    ~LiveBridge() override;  // cancels a running session and joins its threads

    // Starts dictation on `model` (kept alive while it runs). Returns the reason it could not
    // start (a device that cannot be opened, a file that cannot be read), empty on success.
    QString start(std::shared_ptr<LoadedModel> model, const LiveOptions& options);
    // Ends the input; what is queued is still heard and committed (the final update), then the
    // threads are joined off the UI thread and stopped() follows. Idempotent.
    void stop();
    // From start() until stopped().
    bool isRunning() const { return m_controller != nullptr; }
    // The session's statistics (empty when none ran yet); valid after stopped(). Its `error` is
    // why the session ended by itself: the engine's error, or the input device's (lost, failed).
    const LiveStats& lastStats() const { return m_lastStats; }

signals:
    void updated(const earshot::ui::LiveTextUpdate& update);
    // After `updated`, for an update the engine ran on: the steps it timed, with their scopes.
    void engineTimings(const earshot::app::StepTimings& timings);
    void levelChanged(double levelDbfs);
    // The device was lost, or the engine failed: the session stops; `message` says why.
    void failed(const QString& message);
    void stopped();

private:
    void poll();
    void finishStop();

    std::shared_ptr<LoadedModel> m_model;
    std::unique_ptr<LiveController> m_controller;
    std::thread m_stopper;
    QTimer* m_poll = nullptr;
    bool m_stopping = false;
    LiveStats m_lastStats;
    QString m_deviceError;  // the capture error that ended the running session
};

}  // namespace earshot::app
