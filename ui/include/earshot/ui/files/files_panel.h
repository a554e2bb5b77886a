// FilesPanel: the file transcription page. Files come in by dialog or drag and drop and wait in a
// queue with a progress bar each; a file's segments are listed with their times as they are
// transcribed, and its transcript can be exported as TXT, SRT, VTT or JSON, alone or with all the
// others. Rows can be removed, finished ones all at once. A result's text is also shown as its
// timed words: Play plays the file (through the TranscriptPlayer the app gives) with the word being
// heard highlighted, and clicking a word plays from its start onward. The app does the work: the
// panel announces jobs and requests, and shows what the app reports.
#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "earshot/ui/files/file_job.h"
#include "earshot/ui/files/transcript_player.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace earshot::ui {

class SegmentTokensView;
class TranscriptWordsView;

class FilesPanel : public QWidget {
    Q_OBJECT

public:
    explicit FilesPanel(QWidget* parent = nullptr);
    ~FilesPanel() override;

    // Who plays the files' audio (none: Play says so).
    void setPlayer(std::unique_ptr<TranscriptPlayer> player);
    TranscriptPlayer* player() const { return m_player.get(); }

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
    // A running job waits while dictation has the model (`paused`), or goes on: its row says so.
    void setJobPaused(int id, bool paused);
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
    TranscriptWordsView* transcriptWords() const { return m_words; }
    QPushButton* playButton() const { return m_play; }
    // The playback time ("00:03.200 / 00:12.000"), or why nothing plays.
    QLabel* playbackLabel() const { return m_playback; }
    // How often, while playing, the position is read and the highlight moved.
    static constexpr int kPlaybackTickMs = 30;

    // The file-type filter of the open dialog.
    static QString audioFileFilter();

public slots:
    void chooseFiles();     // the open dialog (many files)
    void cancelSelected();  // cancels the selected job if it is queued or running
    void removeSelected();  // removes the selected rows, a queued or running job's too
    void clearFinished();   // removes every done, failed and cancelled row
    void exportSelected(const QString& format);  // "txt", "srt", "vtt" or "json": save dialog
    void exportAll();  // ExportAllDialog, then exportAllRequested with exportTargets' names
    // Play/Pause: plays the shown file from where it paused (from the start when it ended or
    // another file played), or pauses it.
    void togglePlayback();
    // Plays the shown file from `seconds` onward.
    void playFrom(double seconds);
    // Reads the player's position: highlights the word heard, shows the time, and notices the end.
    void updatePlayback();

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
        QString name;  // the file name, with parent folders where another queued file shares it
        FileJobState state = FileJobState::queued;
        QList<SegmentRow> segments;
        QString language;
        QString message;
    };

    int appendJob(const QString& path);  // a queued row; no signal
    void refreshNames();                 // each row's name tells it from the others
    int rowOf(int id) const;
    void setState(int id, FileJobState state, const QString& status);
    void showResult(int id);
    void showNothing();
    void appendSegmentRow(const SegmentRow& segment);
    void updateButtons();
    void stopPlayback();                     // pauses and forgets which file played
    void cannotPlay(const QString& reason);  // stops, and says why once
    void showPlaybackState();
    QString wordsPlaceholder(const Job& job) const;

    QTableWidget* m_queue = nullptr;
    QTableWidget* m_segments = nullptr;
    QLabel* m_resultTitle = nullptr;
    QLabel* m_segmentTime = nullptr;
    SegmentTokensView* m_tokens = nullptr;
    TranscriptWordsView* m_words = nullptr;
    QPushButton* m_play = nullptr;
    QLabel* m_playback = nullptr;
    QTimer* m_playTimer = nullptr;
    std::unique_ptr<TranscriptPlayer> m_player;
    int m_playedJob = -1;  // the job whose file the player holds (-1: none)
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
