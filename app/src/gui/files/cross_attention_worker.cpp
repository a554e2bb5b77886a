// CrossAttentionWorker: a task at a time on its own std::thread, joined before the next starts;
// the result crosses back through QMetaObject::invokeMethod (queued).
#include "gui/files/cross_attention_worker.h"

#include <algorithm>
#include <exception>
#include <filesystem>

#include "earshot/audio/file_decoder.h"
#include "earshot/audio/log_mel.h"
#include "gui/files/segment_cross_attention.h"
#include "gui/inspector/tap_values.h"

namespace earshot::app {

namespace {
constexpr size_t kTimelinePeaks = 4000;  // plenty for a timeline a screen wide
constexpr double kSampleRateHz = 16000.0;
}  // namespace

CrossAttentionWorker::CrossAttentionWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<ui::CrossAttentionRequest>();
    qRegisterMetaType<ui::CrossAttentionMap>();
}

CrossAttentionWorker::~CrossAttentionWorker() {
    if (m_thread.joinable()) m_thread.join();
}

void CrossAttentionWorker::requestMap(std::shared_ptr<LoadedModel> model,
                                      const ui::CrossAttentionRequest& request, const QString& path,
                                      const decoding::Segment& segment,
                                      const std::string& language) {
    Task task;
    task.map = true;
    task.model = std::move(model);
    task.request = request;
    task.path = path;
    task.segment = segment;
    task.language = language;
    m_nextMap = std::move(task);
    startNext();
}

void CrossAttentionWorker::requestTaps(std::shared_ptr<LoadedModel> model,
                                       const std::vector<std::string>& names, const QString& path,
                                       const decoding::Segment& segment,
                                       const std::string& language, const QString& source) {
    Task task;
    task.map = true;
    task.taps = true;
    task.model = std::move(model);
    task.names = names;
    task.path = path;
    task.segment = segment;
    task.language = language;
    task.source = source;
    m_nextTaps = std::move(task);
    startNext();
}

void CrossAttentionWorker::requestWaveform(int job, const QString& path) {
    Task task;
    task.job = job;
    task.path = path;
    m_nextWaveform = std::move(task);
    startNext();
}

const std::vector<float>& CrossAttentionWorker::samplesOf(const QString& path) {
    if (path != m_samplesPath) {
        m_samples = audio::decode_file(std::filesystem::path(path.toStdString())).samples;
        m_samplesPath = path;
    }
    return m_samples;
}

void CrossAttentionWorker::run(const Task& task) {
    if (task.taps) {
        QList<ui::TapValue> values;
        try {
            const std::vector<float>& samples = samplesOf(task.path);
            decoding::DecoderModel& model = *task.model->model;
            const auto start =
                std::min(samples.size(),
                         static_cast<size_t>(std::max(0.0, task.segment.start_s) * kSampleRateHz));
            const std::span<const float> window(samples.data() + start, samples.size() - start);
            const audio::LogMel mel = audio::log_mel_window(
                window.first(std::min(window.size(), static_cast<size_t>(model.frames()) * 160)),
                static_cast<int>(model.mels()), model.frames());
            const std::vector<int32_t> prompt =
                segment_prompt(task.model->tokenizer, task.segment, task.language);
            values =
                run_taps(*task.model, task.names,
                         backend::HostTensor::f32({1, model.mels(), model.frames()}, mel.values),
                         prompt, task.source);
        } catch (const std::exception& error) {
            for (const std::string& name : task.names) {
                ui::TapValue value;
                value.name = value.title = QString::fromStdString(name);
                value.error = QStringLiteral("Not tapped: %1").arg(error.what());
                values.append(value);
            }
        }
        QMetaObject::invokeMethod(
            this, [this, values = std::move(values)] { Q_EMIT tapsReady(values); },
            Qt::QueuedConnection);
        return;
    }
    if (task.map) {
        ui::CrossAttentionMap map;
        try {
            map = segment_cross_attention(*task.model, samplesOf(task.path), task.segment,
                                          task.language, task.request.layer, task.request.head);
        } catch (const std::exception& error) {
            map = ui::CrossAttentionMap{};
            map.message = QStringLiteral("No cross-attention map: %1").arg(error.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, request = task.request, map = std::move(map)] { Q_EMIT mapReady(request, map); },
            Qt::QueuedConnection);
        return;
    }
    std::vector<float> peaks;
    double duration_s = 0.0;
    try {
        const std::vector<float>& samples = samplesOf(task.path);
        peaks = waveform_peaks(samples, kTimelinePeaks);
        duration_s = static_cast<double>(samples.size()) / kSampleRateHz;
    } catch (const std::exception&) {
        // No waveform: the timeline shows the segments alone.
    }
    QMetaObject::invokeMethod(
        this,
        [this, job = task.job, peaks = std::move(peaks), duration_s] {
            Q_EMIT waveformReady(job, peaks, duration_s);
        },
        Qt::QueuedConnection);
}

void CrossAttentionWorker::startNext() {
    if (m_running) return;
    std::optional<Task> task;
    if (m_nextMap) {
        task.swap(m_nextMap);
    } else if (m_nextTaps) {
        task.swap(m_nextTaps);
    } else if (m_nextWaveform) {
        task.swap(m_nextWaveform);
    } else {
        return;
    }
    if (m_thread.joinable()) m_thread.join();
    m_running = true;
    m_mapRunning = task->map;
    m_thread = std::thread([this, task = std::move(*task)] {
        run(task);
        QMetaObject::invokeMethod(
            this,
            [this, wasMap = task.map] {
                m_running = false;
                m_mapRunning = false;
                startNext();
                // The model is free once no map or taps task follows.
                if (wasMap && !m_mapRunning) Q_EMIT mapFinished();
            },
            Qt::QueuedConnection);
    });
}

}  // namespace earshot::app
