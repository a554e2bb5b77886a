// FilesWorker: the Files page's queue run off the UI thread. One file at a time goes through
// decode -> whole-file log-mel -> decoding::transcribe on a worker thread, with progress and
// cancel; results come back to the UI thread as queued signals carrying value types.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <utility>

#include "earshot/app/loaded_model.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/decoding/transcript.h"
#include "earshot/ui/files/file_job.h"

namespace earshot::app {

// The segments of `transcript` as the Files page lists them (texts stripped).
QList<ui::SegmentRow> segment_rows(const decoding::Transcript& transcript);

// Decodes `path` and transcribes all of it with `model` (same steps as `earshot transcribe`).
// `progress` gets 0..1 over decoding and transcription; a set `*cancel` stops early and the
// result holds what was done. Throws what decoding and the model throw.
decoding::Transcript transcribe_audio_file(LoadedModel& model, const QString& path,
                                           const decoding::TranscribeOptions& options,
                                           const std::function<void(double)>& progress,
                                           const std::atomic<bool>* cancel);

class FilesWorker : public QObject {
    Q_OBJECT

public:
    explicit FilesWorker(QObject* parent = nullptr);
    ~FilesWorker() override;  // cancels the running job and joins its thread

    // Jobs run with this model (kept alive while one runs); none start while it is null.
    void setModel(std::shared_ptr<LoadedModel> model);
    // Applies to jobs started from now on.
    void setOptions(const decoding::TranscribeOptions& options) { m_options = options; }
    // Held: no job starts (dictation has the model); the queue waits.
    void setHeld(bool held);

    void enqueue(int id, const QString& path);
    // A queued job leaves the queue (jobCancelled with nothing); the running one stops after its
    // current window (jobCancelled with what it has).
    void cancel(int id);

    bool isBusy() const { return m_running >= 0; }
    // Nothing running and nothing queued.
    bool isIdle() const { return m_running < 0 && m_queue.empty(); }
    int runningJob() const { return m_running; }
    // A finished or cancelled job's transcript; null otherwise.
    const decoding::Transcript* transcript(int id) const;
    // A result from an earlier session, for export (no signals).
    void addResult(int id, decoding::Transcript transcript) {
        m_results.insert(id, std::move(transcript));
    }
    // Writes job `id`'s transcript as "txt", "srt", "vtt" or "json" to `path`; the reason on
    // failure, empty on success.
    QString exportTranscript(int id, const QString& format, const QString& path) const;

signals:
    void jobStarted(int id);
    void jobProgress(int id, double fraction);
    void jobFinished(int id, const QList<earshot::ui::SegmentRow>& segments,
                     const QString& language);
    void jobFailed(int id, const QString& message);
    void jobCancelled(int id, const QList<earshot::ui::SegmentRow>& partial);
    void busyChanged(bool busy);
    void idle();  // the last queued job ended

private:
    struct Outcome;
    void startNext();
    void finishJob(const std::shared_ptr<Outcome>& outcome);

    std::shared_ptr<LoadedModel> m_model;
    decoding::TranscribeOptions m_options;
    bool m_held = false;
    std::deque<std::pair<int, QString>> m_queue;
    int m_running = -1;
    std::atomic<bool> m_cancel{false};
    std::thread m_thread;
    QHash<int, decoding::Transcript> m_results;
};

}  // namespace earshot::app
