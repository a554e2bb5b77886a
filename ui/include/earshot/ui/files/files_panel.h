// FilesPanel: the file transcription page. It shows a FilesQueue (the app's; a panel made
// without one has its own): files come in by dialog or drag and drop and wait in the queue
// (FilesQueueView) with a progress bar each; the selected file's result (FileResultView) lists its
// segments with their times as they are transcribed and its timed words with Play. Its transcript
// can be exported as TXT, SRT, VTT or JSON, alone or with all the others. Rows can be removed,
// finished ones all at once. The app does the work: the panel edits the queue's list the way a
// view edits its model, asks for cancels and exports by signal, and shows what the queue holds.
#pragma once

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

namespace earshot::ui {

class FileResultView;
class FilesQueue;
class FilesQueueView;
class SegmentTokensView;
class TranscriptWordsView;

class FilesPanel : public QWidget {
    Q_OBJECT

public:
    // Shows a queue of its own.
    explicit FilesPanel(QWidget* parent = nullptr);
    // Shows `queue` (not owned).
    explicit FilesPanel(FilesQueue* queue, QWidget* parent = nullptr);
    ~FilesPanel() override;

    // The queue shown. setQueue shows another one instead (the page's own, if it had it, goes).
    FilesQueue* queue() const { return m_queue; }
    void setQueue(FilesQueue* queue);

    // Who plays the files' audio (none: Play says so).
    void setPlayer(std::unique_ptr<TranscriptPlayer> player);
    TranscriptPlayer* player() const;

    // The job whose result is shown (-1: none).
    int selectedJob() const;
    // Every selected row's job, in queue order (Remove acts on them).
    QList<int> selectedJobs() const;
    void selectJob(int id);
    // Shows one segment's start and end in the time line below the table and its tokens (coloured
    // by how sure the decoder was) below that, and selects it.
    void selectSegment(int row);

    // The watch folder shown under the buttons (empty: none). Setting it does not emit
    // watchFolderChanged; chooseWatchFolder and Stop watching do.
    void setWatchFolder(const QString& folder);
    QString watchFolder() const { return m_watchFolder; }
    // Watches `folder` (empty: stops watching), as the dialog and Stop watching do.
    void watchFolder(const QString& folder);

    QTableWidget* queueTable() const;
    // The selected file's result: words, segments, timeline and cross-attention.
    FileResultView* resultView() const { return m_result; }
    QTableWidget* segmentTable() const;
    QLabel* segmentTimeLabel() const;
    SegmentTokensView* segmentTokens() const;
    QProgressBar* progressBar(int id) const;
    QLabel* resultTitle() const;
    TranscriptWordsView* transcriptWords() const;
    QPushButton* playButton() const;
    // The playback time ("00:03.200 / 00:12.000"), or why nothing plays.
    QLabel* playbackLabel() const;
    // How often, while playing, the position is read and the highlight moved.
    static constexpr int kPlaybackTickMs = 30;

    // The file-type filter of the open dialog.
    static QString audioFileFilter();

public Q_SLOTS:
    void chooseFiles();     // the open dialog (many files)
    void cancelSelected();  // cancels the selected job if it is queued or running
    void removeSelected();  // removes the selected rows, a queued or running job's too
    void clearFinished();   // removes every done, failed and cancelled row, after asking
    void exportSelected(const QString& format);  // "txt", "srt", "vtt" or "json": save dialog
    void exportAll();          // ExportAllDialog, then exportAllRequested with exportTargets' names
    void chooseWatchFolder();  // the folder dialog, then watchFolder()
    // Play/Pause: plays the shown file from where it paused (from the start when it ended or
    // another file played), or pauses it.
    void togglePlayback();
    // Plays the shown file from `seconds` onward.
    void playFrom(double seconds);
    // Reads the player's position: highlights the word heard, shows the time, and notices the end.
    void updatePlayback();

Q_SIGNALS:
    void cancelRequested(int id);
    // Write job `id`'s transcript in `format` ("txt", "srt", "vtt", "json") to `path`.
    void exportRequested(int id, const QString& format, const QString& path);
    // Write each target (all into `folder`) and say once how it went.
    void exportAllRequested(const QList<earshot::ui::ExportTarget>& targets, const QString& folder);
    // The user chose a folder to watch (empty: stopped watching).
    void watchFolderChanged(const QString& folder);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void connectQueue();
    void jobsRemovedFromQueue(const QList<int>& ids);  // the rows go; another is shown
    void updateButtons();

    FilesQueue* m_queue = nullptr;
    FilesQueueView* m_queueView = nullptr;
    FileResultView* m_result = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_clearFinished = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_exportAll = nullptr;
    QPushButton* m_watch = nullptr;
    QPushButton* m_stopWatch = nullptr;
    QLabel* m_watchLabel = nullptr;
    QString m_watchFolder;
};

}  // namespace earshot::ui
