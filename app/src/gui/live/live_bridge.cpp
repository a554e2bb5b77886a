// LiveBridge: engine-thread updates cross to the UI thread through QMetaObject::invokeMethod with
// a queued connection, copied as ui::LiveTextUpdate; stopping runs LiveController::stop() on a
// helper thread because it waits for the engine to hear what is queued.
#include "gui/live/live_bridge.h"

#include <QMetaObject>
#include <QTimer>
#include <algorithm>
#include <exception>
#include <memory>
#include <utility>

#include "earshot/audio/pre_roll_capture.h"
#include "gui/live/live_cross_attention_map.h"

namespace earshot::app {

namespace {
// How often the idle microphone is checked for a lost device.
constexpr int kIdlePollMs = 250;

void append_tokens(const std::vector<decoding::StreamWord>& words, bool committed,
                   QList<ui::LiveToken>& out) {
    for (const decoding::StreamWord& word : words) {
        for (const decoding::StreamToken& token : word.tokens) {
            ui::LiveToken live;
            live.text = QString::fromStdString(token.text);
            live.probability = token.probability;
            live.committed = committed;
            for (const auto& [text, probability] : token.alternatives) {
                live.alternatives.append({QString::fromStdString(text), probability});
            }
            out.append(std::move(live));
        }
    }
}
}  // namespace

ui::LiveTextUpdate to_text_update(const LiveUpdate& update) {
    ui::LiveTextUpdate text;
    text.committedText = QString::fromStdString(update.update.committed_text);
    text.erasedChars = static_cast<int>(update.erased_chars);
    text.tentativeText = QString::fromStdString(update.update.tentative_text);
    append_tokens(update.update.committed_words, true, text.tokens);
    append_tokens(update.update.tentative_words, false, text.tokens);
    text.engineMs = update.update.engine_ms;
    text.delayMs = std::max(0.0, (update.wall_s - update.update.audio_end_s) * 1000.0);
    text.audioEndS = update.update.audio_end_s;
    text.decoded = update.update.gate == decoding::UpdateGate::decoded ||
                   update.update.gate == decoding::UpdateGate::no_speech;
    text.final = update.update.final;
    text.coalescedUpdates = update.coalesced_updates;
    text.droppedFrames = update.dropped_frames;
    text.overrunSamples = update.overrun_samples;
    return text;
}

LiveBridge::LiveBridge(QObject* parent) : QObject(parent) {
    m_poll = new QTimer(this);
    m_poll->setInterval(kLevelPollMs);
    connect(m_poll, &QTimer::timeout, this, &LiveBridge::poll);
    m_idlePoll = new QTimer(this);
    m_idlePoll->setInterval(kIdlePollMs);
    connect(m_idlePoll, &QTimer::timeout, this, &LiveBridge::pollIdle);
}

LiveBridge::~LiveBridge() {
    if (m_stopper.joinable()) {
        m_stopper.join();
    }
    if (m_controller) {
        m_controller->cancel();
    }
    m_controller.reset();  // joins the threads before this QObject goes away
    m_idleMicrophone.reset();
}

void LiveBridge::setPreRoll(double seconds, const QString& device, bool wanted) {
    m_preRollSeconds = seconds;
    m_preRollDevice = device;
    m_preRollWanted = wanted;
    if (!m_controller) applyPreRoll();
}

bool LiveBridge::idleMicrophoneOpen() const { return m_idleMicrophone != nullptr && !m_controller; }

void LiveBridge::closeIdleMicrophone(const QString& message) {
    if (!m_idleMicrophone) return;
    m_idlePoll->stop();
    m_idleMicrophone.reset();
    m_idleDevice.clear();
    m_idleMessage = message;
    Q_EMIT idleMicrophoneChanged(false, message);
}

void LiveBridge::applyPreRoll() {
    const bool wanted = m_preRollWanted && m_preRollSeconds > 0.0;
    if (!wanted) {
        closeIdleMicrophone(tr("Microphone closed while idle (no pre-roll)."));
        return;
    }
    if (m_idleMicrophone && m_idleDevice == m_preRollDevice &&
        m_idleMicrophone->seconds() == m_preRollSeconds) {
        return;  // already open as asked
    }
    m_idleMicrophone.reset();
    auto microphone = std::make_unique<audio::PreRollCapture>(m_preRollSeconds);
    audio::CaptureOptions options;
    options.device = m_preRollDevice.toStdString();
    audio::CaptureEvent event;
    try {
        event = microphone->start(options);
    } catch (const std::exception& error) {
        event = {audio::CaptureEventKind::open_failed, error.what()};
    }
    if (event.is_error()) {
        m_idleDevice.clear();
        m_idlePoll->stop();
        m_idleMessage = tr("The pre-roll microphone could not be opened: %1")
                            .arg(QString::fromStdString(event.message));
        Q_EMIT idleMicrophoneChanged(false, m_idleMessage);
        return;
    }
    microphone->take_events();  // `started`, reported here
    m_idleMicrophone = std::move(microphone);
    m_idleDevice = m_preRollDevice;
    m_idlePoll->start();
    m_idleMessage = tr("Microphone open while idle: the last %1 s are kept for the pre-roll.")
                        .arg(m_preRollSeconds, 0, 'f', 1);
    Q_EMIT idleMicrophoneChanged(true, m_idleMessage);
}

void LiveBridge::pollIdle() {
    if (!m_idleMicrophone || m_controller) return;
    for (const audio::CaptureEvent& event : m_idleMicrophone->take_events()) {
        if (event.is_error()) {
            closeIdleMicrophone(tr("The pre-roll microphone stopped: %1")
                                    .arg(QString::fromStdString(event.message)));
            return;
        }
    }
}

QString LiveBridge::start(std::shared_ptr<LoadedModel> model, const LiveOptions& options) {
    if (m_controller) {
        return tr("Dictation is already running.");
    }
    if (!model) {
        return tr("No model is loaded.");
    }
    // The sink runs on the engine thread: copy the update into a value and queue it. The
    // controller is joined before this object is destroyed, so `this` outlives every call.
    // The decoder model's timings are taken here too, on the engine thread, the only one using
    // the model while the session runs.
    decoding::DecoderModel* decoder = model->model.get();
    const tokenizer::Tokenizer* tokenizer = &model->tokenizer;
    auto sink = [this, decoder, tokenizer](const LiveUpdate& update) {
        const ui::LiveTextUpdate text = to_text_update(update);
        auto timings = std::make_shared<const StepTimings>(decoder->take_step_timings());
        // The map is turned into the view's data on the UI thread, off the engine's time.
        std::shared_ptr<const decoding::LiveCrossAttention> map = update.update.cross_attention;
        std::shared_ptr<const std::vector<float>> samples = update.window_samples;
        const int64_t index = update.update.index;
        QMetaObject::invokeMethod(
            this,
            [this, text, timings, map, samples, tokenizer, index] {
                Q_EMIT updated(text);
                if (!timings->empty()) Q_EMIT engineTimings(*timings);
                if (map) {
                    Q_EMIT crossAttentionMap(live_cross_attention_map(*map, samples, *tokenizer),
                                             tr("dictation, update %1").arg(index + 1));
                }
            },
            Qt::QueuedConnection);
    };
    LiveOptions session = options;
    if (session.input.empty() && m_idleMicrophone) {
        pollIdle();  // a lost device is not started from
    }
    if (session.input.empty() && m_idleMicrophone &&
        m_idleDevice == QString::fromStdString(session.device)) {
        session.microphone = m_idleMicrophone.get();  // the pre-roll, and no reopening
    } else if (m_idleMicrophone) {
        // Another device (or a file): the idle one is closed meanwhile, reopened at the end.
        closeIdleMicrophone(tr("Microphone closed while dictating from another source."));
    }
    m_idlePoll->stop();
    decoder->set_profiling(true);
    auto controller =
        std::make_unique<LiveController>(*model->model, model->tokenizer, session, sink);
    try {
        controller->start();
    } catch (const std::exception& error) {
        decoder->set_profiling(false);
        applyPreRoll();
        return QString::fromStdString(error.what());
    }
    m_model = std::move(model);
    m_controller = std::move(controller);
    m_stopping = false;
    m_poll->start();
    return {};
}

void LiveBridge::stop() {
    if (!m_controller || m_stopping) {
        return;
    }
    m_stopping = true;
    LiveController* controller = m_controller.get();
    m_stopper = std::thread([this, controller] {
        controller->stop();
        QMetaObject::invokeMethod(this, &LiveBridge::finishStop, Qt::QueuedConnection);
    });
}

void LiveBridge::finishStop() {
    if (m_stopper.joinable()) {
        m_stopper.join();
    }
    m_poll->stop();
    if (m_controller) {
        m_lastStats = m_controller->stats();
        m_controller.reset();
    }
    if (m_model) {
        m_model->model->set_profiling(false);  // the threads are joined: the UI has the model
    }
    m_model.reset();
    m_stopping = false;
    Q_EMIT levelChanged(-120.0);
    if (m_lastStats.error.empty() && !m_deviceError.isEmpty()) {
        // The device failed (already reported by failed()): the session's error is the device's.
        m_lastStats.error = m_deviceError.toStdString();
    } else if (!m_lastStats.error.empty()) {
        Q_EMIT failed(QString::fromStdString(m_lastStats.error));
    }
    if (!m_deviceError.isEmpty()) {
        // The session's device failed: the idle microphone (if it was that one) is gone too.
        closeIdleMicrophone(tr("The pre-roll microphone stopped: %1").arg(m_deviceError));
    }
    m_deviceError.clear();
    applyPreRoll();  // open again (or as the settings changed meanwhile)
    if (m_idleMicrophone) m_idlePoll->start();
    Q_EMIT stopped();
}

void LiveBridge::poll() {
    if (!m_controller) {
        return;
    }
    Q_EMIT levelChanged(static_cast<double>(m_controller->level_dbfs()));
    for (const audio::CaptureEvent& event : m_controller->take_events()) {
        if (event.is_error() && !m_stopping) {
            m_deviceError = QString::fromStdString(event.message);
            Q_EMIT failed(m_deviceError);
            stop();
        }
    }
    // The input file ended, or the engine failed: the session is over by itself.
    if (m_controller && m_controller->done() && !m_stopping) {
        stop();
    }
}

}  // namespace earshot::app
