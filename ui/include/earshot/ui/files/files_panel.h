// FilesPanel: the file transcription page. Files come in by dialog or drag and drop and wait in a
// queue with a progress bar each; a file's segments are listed with their times as they are
// transcribed, and its transcript can be exported as TXT, SRT, VTT or JSON, alone or with all the
// others. Rows can be removed, finished ones all at once. The app does the work: the panel
// announces jobs and requests, and shows what the app reports.
#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "earshot/ui/files/file_job.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace earshot::ui {

class SegmentTokensView;

class FilesPanel : public QWidget {
    Q_OBJECT

public:
    explicit FilesPanel(QWidget* parent = nullptr);

    // Queues each file (emits jobQueued per file) and returns the new jobs' ids, in order.
    QList<int> addFiles(const QStringList& paths);

    // A result from an earlier session (done, or cancelled with what it had): listed like a
    // finished job, without jobQueued. Returns its id.
    int addFinishedJob(const QString& path, const QList<SegmentRow>& segments,
                       const QString& language, FileJobState state);

    void setJobRunning(int id);
    void setJobProgress(int id, double fraction);
    // Segments a running job has just transcribed: appended to its rows (shown at once when it is
    // the job shown). Ignored for a job that is not running.
    void appendJobSegments(int id, const QList<SegmentRow>& segments);
    void setJobFinished(int id, const QList<SegmentRow>& segments, const QString& language);
    void setJobFailed(int id, const QString& message);
    // Cancelled: keeps what was transcribed before the cancel, viewable and exportable.
    void setJobCancelled(int id, const QList<SegmentRow>& partial);

    FileJobState jobState(int id) const;
    QString jobPath(int id) const;
    QList<int> jobIds() const;  // in queue order
    QList<SegmentRow> jobSegments(int id) const;
    // Jobs queued or running: work that quitting would lose.
    int unfinishedJobs() const;
    // The job whose result is shown (-1: none).
    int selectedJob() const;
    // Every selected row's job, in queue order (Remove acts on them).
    QList<int> selectedJobs() const;
    void selectJob(int id);
    // The jobs "Export all" writes, in queue order: done ones and cancelled ones with segments
    // (the same that Export offers).
    QList<int> exportableJobs() const;
    // Takes the rows of `ids` off the list and emits jobsRemoved with the ids it had.
    void removeJobs(const QList<int>& ids);
    // Shows one segment's start and end in the time line below the table and its tokens (coloured
    // by how sure the decoder was) below that, and selects it.
    void selectSegment(int row);

    QTableWidget* queueTable() const { return m_queue; }
    QTableWidget* segmentTable() const { return m_segments; }
    QLabel* segmentTimeLabel() const { return m_segmentTime; }
    SegmentTokensView* segmentTokens() const { return m_tokens; }
    QProgressBar* progressBar(int id) const;
    QLabel* resultTitle() const { return m_resultTitle; }

    // The file-type filter of the open dialog.
    static QString audioFileFilter();

public slots:
    void chooseFiles();     // the open dialog (many files)
    void cancelSelected();  // cancels the selected job if it is queued or running
    void removeSelected();  // removes the selected rows, a queued or running job's too
    void clearFinished();   // removes every done, failed and cancelled row
    void exportSelected(const QString& format);  // "txt", "srt", "vtt" or "json": save dialog
    void exportAll();  // ExportAllDialog, then exportAllRequested with exportTargets' names

signals:
    void jobQueued(int id, const QString& path);
    void cancelRequested(int id);
    // Rows taken off the list: whoever runs a queued or running one stops it (and keeps nothing
    // of it), and a finished one's kept result is forgotten.
    void jobsRemoved(const QList<int>& ids);
    // Write job `id`'s transcript in `format` ("txt", "srt", "vtt", "json") to `path`.
    void exportRequested(int id, const QString& format, const QString& path);
    // Write each target (all into `folder`) and say once how it went.
    void exportAllRequested(const QList<earshot::ui::ExportTarget>& targets, const QString& folder);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct Job {
        QString path;
        FileJobState state = FileJobState::queued;
        QList<SegmentRow> segments;
        QString language;
        QString message;
    };

    int appendJob(const QString& path);  // a queued row; no signal
    int rowOf(int id) const;
    void setState(int id, FileJobState state, const QString& status);
    void showResult(int id);
    void showNothing();
    void appendSegmentRow(const SegmentRow& segment);
    void updateButtons();

    QTableWidget* m_queue = nullptr;
    QTableWidget* m_segments = nullptr;
    QLabel* m_resultTitle = nullptr;
    QLabel* m_segmentTime = nullptr;
    SegmentTokensView* m_tokens = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_clearFinished = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_exportAll = nullptr;
    QHash<int, Job> m_jobs;
    QList<int> m_order;
    int m_nextId = 1;
    int m_shown = -1;
};

}  // namespace earshot::ui
