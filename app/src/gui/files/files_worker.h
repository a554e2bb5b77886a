// FilesWorker: the Files page's queue run off the UI thread. One file at a time goes through
// decode -> whole-file log-mel -> decoding::transcribe (with word times where the backend can)
// on a worker thread, with progress, each
// window's new segments and cancel; results come back to the UI thread as queued signals carrying
// value types. It also writes the results out (one file, or all of them into a folder).
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <utility>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/decoding/transcript.h"
#include "earshot/ui/files/file_job.h"

namespace earshot::app {

// The segments as the Files page lists them: texts stripped, and without the segments whose text
// is blank (silent windows, zero-length segments), which TXT, SRT and VTT leave out too. With a
// tokenizer, each row also holds its text tokens (each decoded alone) and their probabilities,
// exp(Segment::token_logprobs), -1 where the decode measured none. Each row holds its segment's
// words (Segment::words, stripped) when the transcription timed them.
QList<ui::SegmentRow> segment_rows(std::span<const decoding::Segment> segments,
                                   const tokenizer::Tokenizer* tokenizer = nullptr);
QList<ui::SegmentRow> segment_rows(const decoding::Transcript& transcript,
                                   const tokenizer::Tokenizer* tokenizer = nullptr);

// `options` with word times asked for, the way `earshot transcribe --word-timestamps` asks: the
// heads of alignment_heads() (transcription_setup.h; it throws TranscriptionSetupError for a head
// the model lacks). Unchanged but for word_timestamps = false where the model's backend does not
// return cross-attention weights (keeps_cross_attention()) or the options leave timestamps out:
// such results carry no words.
decoding::TranscribeOptions with_word_times(decoding::TranscribeOptions options,
                                            const LoadedModel& model);

// What "Export all" did: how many files were written of how many, and each failure as
// "<file name>: <reason>".
struct FilesExportSummary {
    int written = 0;
    int total = 0;
    QStringList failures;
    // The one status message: "Exported 4 files to /out", or with the failures.
    QString message(const QString& folder) const;
};

// Decodes `path` and transcribes all of it with `model` (same steps as `earshot transcribe`).
// `progress` gets 0..1 over decoding and transcription; a set `*cancel` stops early and the
// result holds what was done. Throws what decoding and the model throw.
decoding::Transcript transcribe_audio_file(LoadedModel& model, const QString& path,
                                           const decoding::TranscribeOptions& options,
                                           const std::function<void(double)>& progress,
                                           const std::atomic<bool>* cancel,
                                           const decoding::NewSegmentsFn& on_segments = {});

class FilesWorker : public QObject {
    Q_OBJECT

public:
    explicit FilesWorker(QObject* parent = nullptr);
    ~FilesWorker() override;  // cancels the running job and joins its thread

    // Jobs run with this model (kept alive while one runs); none start while it is null.
    void setModel(std::shared_ptr<LoadedModel> model);
    // Applies to jobs started from now on.
    void setOptions(const decoding::TranscribeOptions& options) {
        m_options = options;
        m_setupError.clear();
    }
    // The settings do not fit the model (transcription_setup.h's sentence): every job fails with
    // it, as `earshot transcribe` and dictation refuse them, until the next setOptions.
    void setSetupError(const QString& error) { m_setupError = error; }
    // Held: no job starts (dictation has the model); the queue waits.
    void setHeld(bool held);
    // Pauses the queue for dictation: no job starts, and the running one waits at its next window
    // boundary, where the model is free (no state of the file's transcription lives in it between
    // windows). paused() follows once nothing uses the model: at once when no job runs.
    void pause();
    // Ends a pause (and a hold): the running job goes on from its next window, then the queue.
    void resume();
    bool isPaused() const { return m_pauseRequested; }

    void enqueue(int id, const QString& path);
    // A queued job leaves the queue (jobCancelled with nothing); the running one stops after its
    // current window (jobCancelled with what it has).
    void cancel(int id);
    // The job is forgotten: a queued one leaves the queue, the running one stops after its
    // current window, both without any further signal for it; a result is dropped.
    void remove(int id);
    // Quitting: nothing more starts, the running job stops after its current window, and its
    // outcome is delivered now, before this returns (jobCancelled with what it has, or
    // jobFinished when it ended on its own), so that a partial transcript is kept as Cancel keeps
    // it. The queued jobs are dropped without a signal.
    void stopForQuit();

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
    // Writes every target (the same writer as exportTranscript) into `folder`, made when missing.
    FilesExportSummary exportAll(const QList<ui::ExportTarget>& targets,
                                 const QString& folder) const;

Q_SIGNALS:
    void jobStarted(int id);
    void jobProgress(int id, double fraction);
    // The rows the running job's last window added (never empty).
    void jobSegments(int id, const QList<earshot::ui::SegmentRow>& segments);
    void jobFinished(int id, const QList<earshot::ui::SegmentRow>& segments,
                     const QString& language);
    void jobFailed(int id, const QString& message);
    void jobCancelled(int id, const QList<earshot::ui::SegmentRow>& partial);
    void busyChanged(bool busy);
    void idle();     // the last queued job ended
    void paused();   // after pause(): the model is free until resume()
    void resumed();  // resume() of a running job that was paused

private:
    struct Outcome;
    void startNext();
    void finishJob(const std::shared_ptr<Outcome>& outcome);
    // On the job's thread, between windows: waits while a pause is asked for (not cancelled).
    void waitWhilePaused();
    // Wakes a paused job so it sees m_cancel.
    void wakePaused();

    std::shared_ptr<LoadedModel> m_model;
    decoding::TranscribeOptions m_options;
    QString m_setupError;
    bool m_held = false;
    std::deque<std::pair<int, QString>> m_queue;
    int m_running = -1;
    bool m_runningRemoved = false;  // remove() of the running job: its outcome is dropped
    std::atomic<bool> m_cancel{false};
    bool m_pauseRequested = false;  // UI thread's view of pause()/resume()
    std::mutex m_pauseMutex;        // guards m_pauseWanted and m_waiting with the worker
    std::condition_variable m_pauseChanged;
    bool m_pauseWanted = false;
    bool m_waiting = false;  // the job's thread waits in waitWhilePaused()
    std::thread m_thread;
    // The running job's outcome, set by its thread before it ends (read after joining it).
    std::shared_ptr<Outcome> m_outcome;
    QHash<int, decoding::Transcript> m_results;
};

}  // namespace earshot::app
