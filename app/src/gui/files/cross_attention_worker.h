// CrossAttentionWorker: the Files page's cross-attention maps and timeline waveforms, computed
// off the UI thread one at a time (a newer request replaces one still waiting). The file's audio
// is decoded once and kept for the next segment of the same file. Results come back as queued
// signals carrying value types. While a map is computed the model is in use: the controller
// holds the files queue and dictation waits for mapFinished.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/decoding/transcript.h"
#include "earshot/ui/files/cross_attention_data.h"
#include "earshot/ui/inspector/tap_data.h"

namespace earshot::app {

class CrossAttentionWorker : public QObject {
    Q_OBJECT

public:
    explicit CrossAttentionWorker(QObject* parent = nullptr);
    ~CrossAttentionWorker() override;  // waits for the computation in progress

    // The map of `segment` of the file at `path` for `request`, with `model` (kept alive while
    // it runs).
    void requestMap(std::shared_ptr<LoadedModel> model, const ui::CrossAttentionRequest& request,
                    const QString& path, const decoding::Segment& segment,
                    const std::string& language);
    // The waveform peaks of the file at `path` for job `job`'s timeline.
    void requestWaveform(int job, const QString& path);
    // The inspector's open taps (`names`) on the window of `segment` of the file at `path`, its
    // text as the decoder's prompt (tap_values.h); the model is in use as for a map.
    void requestTaps(std::shared_ptr<LoadedModel> model, const std::vector<std::string>& names,
                     const QString& path, const decoding::Segment& segment,
                     const std::string& language, const QString& source);

    // A map or taps are being computed (the model is in use).
    bool isComputingMap() const { return m_mapRunning; }

Q_SIGNALS:
    void mapReady(const earshot::ui::CrossAttentionRequest& request,
                  const earshot::ui::CrossAttentionMap& map);
    void waveformReady(int job, const std::vector<float>& peaks, double durationS);
    void tapsReady(const QList<earshot::ui::TapValue>& values);
    // The model is free again: the last map or taps task ended and none waits.
    void mapFinished();

private:
    struct Task {
        bool map = false;  // a map, or taps: the model is used
        bool taps = false;
        std::vector<std::string> names;
        QString source;
        std::shared_ptr<LoadedModel> model;
        ui::CrossAttentionRequest request;
        QString path;
        decoding::Segment segment;
        std::string language;
        int job = -1;
    };
    void startNext();
    void run(const Task& task);
    // The file's samples (16 kHz mono), decoded once per path; throws what decoding throws.
    const std::vector<float>& samplesOf(const QString& path);

    std::optional<Task> m_nextMap;
    std::optional<Task> m_nextWaveform;
    std::optional<Task> m_nextTaps;
    bool m_running = false;
    bool m_mapRunning = false;
    std::thread m_thread;
    // Only the worker's thread touches these while it runs.
    QString m_samplesPath;
    std::vector<float> m_samples;
};

}  // namespace earshot::app
