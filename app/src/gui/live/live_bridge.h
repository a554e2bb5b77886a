// LiveBridge: the GUI's side of live dictation. Owns a LiveController, re-emits its updates (which
// arrive on the engine thread) as queued signals carrying value types, with the engine's timed
// steps of each update (the backend profiles while dictation runs), polls the input level at
// 20 Hz for the meter, and stops without blocking the UI. While idle it may keep the microphone
// open for the pre-roll (Settings), and a session on that device starts from it.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <thread>
#include <vector>

#include "earshot/core/live_controller.h"
#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/ui/files/cross_attention_data.h"
#include "earshot/ui/live/live_types.h"

class QTimer;

namespace earshot::audio {
class PreRollCapture;
}

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

    // The pre-roll: with `seconds` > 0 and `wanted` (a model is there), the microphone `device`
    // ("" = default input) stays open while idle and its last `seconds` are kept; a session
    // started on that device hears them first. Otherwise it is closed. While a session runs the
    // change waits for its end. idleMicrophoneChanged() reports the outcome.
    void setPreRoll(double seconds, const QString& device, bool wanted);
    // The microphone is open for the pre-roll (not counting a running session).
    bool idleMicrophoneOpen() const;
    // What idleMicrophoneChanged() last said.
    const QString& idleMicrophoneMessage() const { return m_idleMessage; }

Q_SIGNALS:
    void updated(const earshot::ui::LiveTextUpdate& update);
    // After `updated`, for an update the engine ran on: the steps it timed, with their scopes.
    void engineTimings(const earshot::app::StepTimings& timings);
    // After `updated`, for an update that kept the live cross-attention map
    // (StreamingOptions::cross_attention): the map of its current hypothesis.
    void crossAttentionMap(const earshot::ui::CrossAttentionMap& map, const QString& source);
    void levelChanged(double levelDbfs);
    // The device was lost, or the engine failed: the session stops; `message` says why.
    void failed(const QString& message);
    void stopped();
    // The idle microphone opened (`open`) or closed; `message` says so, or why it failed.
    void idleMicrophoneChanged(bool open, const QString& message);

private:
    void poll();
    void pollIdle();
    void finishStop();
    void applyPreRoll();
    void closeIdleMicrophone(const QString& message);

    std::shared_ptr<LoadedModel> m_model;
    std::unique_ptr<LiveController> m_controller;
    std::thread m_stopper;
    QTimer* m_poll = nullptr;
    bool m_stopping = false;
    LiveStats m_lastStats;
    QString m_deviceError;  // the capture error that ended the running session

    // The pre-roll asked for, and the microphone open for it (kept while idle).
    double m_preRollSeconds = 0.0;
    QString m_preRollDevice;
    bool m_preRollWanted = false;
    std::unique_ptr<audio::PreRollCapture> m_idleMicrophone;
    QString m_idleDevice;  // the device m_idleMicrophone has open
    QString m_idleMessage;
    QTimer* m_idlePoll = nullptr;
};

}  // namespace earshot::app
