// FilesQueue: the Files page's state, apart from any widget. The files queued for transcription
// in order, each with its state, progress and segments (so far, or its result), and the
// finished results of earlier sessions. The app owns it: the worker's reports change it, history
// reads it, and FilesPanel shows it and edits it the way a view edits its model (adds files,
// removes rows); every change is announced by a signal.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include "earshot/ui/files/file_job.h"

namespace earshot::ui {

class FilesQueue : public QObject {
    Q_OBJECT

public:
    explicit FilesQueue(QObject* parent = nullptr);

    // Queues each file (jobAdded, then jobQueued, per file) and returns the new jobs' ids, in
    // order.
    QList<int> addFiles(const QStringList& paths);
    // A result from an earlier session (done, or cancelled with what it had): listed like a
    // finished job, without jobQueued. Returns its id.
    int addFinishedJob(const QString& path, const QList<SegmentRow>& segments,
                       const QString& language, FileJobState state);

    // The worker's reports; each is ignored for a job that is not listed (removed since).
    void setJobRunning(int id);  // forgets segments of an earlier run
    void setJobProgress(int id, double fraction);
    // Segments a running job has just transcribed, appended to its own. Ignored for a job that is
    // not running.
    void appendJobSegments(int id, const QList<SegmentRow>& segments);
    // A running job waits while dictation has the model (`paused`), or goes on.
    void setJobPaused(int id, bool paused);
    void setJobFinished(int id, const QList<SegmentRow>& segments, const QString& language);
    // `message` loses a leading "path: ": the row names the file already.
    void setJobFailed(int id, const QString& message);
    // Cancelled: keeps what was transcribed before the cancel, viewable and exportable.
    void setJobCancelled(int id, const QList<SegmentRow>& partial);

    // Takes `ids` off the list and emits jobsRemoved with the ids it had.
    void removeJobs(const QList<int>& ids);

    bool contains(int id) const { return m_jobs.contains(id); }
    // The job's record; a default one (id -1) for an id that is not listed.
    FileJob job(int id) const { return m_jobs.value(id); }
    FileJobState jobState(int id) const { return m_jobs.value(id).state; }
    QString jobPath(int id) const { return m_jobs.value(id).path; }
    QList<SegmentRow> jobSegments(int id) const { return m_jobs.value(id).segments; }
    QList<int> jobIds() const { return m_order; }  // in queue order
    // Jobs queued or running: work that quitting would lose.
    int unfinishedJobs() const;
    // Done, failed or cancelled: what "Clear finished" takes.
    QList<int> finishedJobs() const;
    // The jobs "Export all" writes, in queue order: done ones and cancelled ones with segments.
    QList<int> exportableJobs() const;
    static bool isExportable(const FileJob& job);

Q_SIGNALS:
    // A row at the end of the list (queued, or an earlier result).
    void jobAdded(int id);
    // A file to transcribe: whoever runs jobs starts it in turn.
    void jobQueued(int id, const QString& path);
    // Its state changed (running, done, failed, cancelled), with its segments and message.
    void jobStateChanged(int id);
    void jobProgressChanged(int id);
    void jobPausedChanged(int id);
    void segmentsAppended(int id, const QList<earshot::ui::SegmentRow>& segments);
    // Its name gained or lost parent folders (another file of its name came or went).
    void jobRenamed(int id);
    // Rows taken off the list: whoever runs a queued or running one stops it (and keeps nothing
    // of it), and a finished one's kept result is forgotten.
    void jobsRemoved(const QList<int>& ids);

private:
    int appendJob(const QString& path);  // jobAdded; no jobQueued
    void refreshNames();                 // each job's name tells it from the others
    void setState(int id, FileJobState state);

    QHash<int, FileJob> m_jobs;
    QList<int> m_order;
    int m_nextId = 1;
};

}  // namespace earshot::ui
