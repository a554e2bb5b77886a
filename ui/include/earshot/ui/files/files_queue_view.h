// FilesQueueView: the Files page's queue table, one row per job of a FilesQueue: its file name
// (the path as tooltip), a progress bar and its status, kept in step with the queue's signals.
// Rows are selected here; what a selection does is the page's.
#pragma once

#include <QList>
#include <QTableWidget>

#include "earshot/ui/files/file_job.h"

class QProgressBar;

namespace earshot::ui {

class FilesQueue;

class FilesQueueView : public QTableWidget {
    Q_OBJECT

public:
    explicit FilesQueueView(FilesQueue* queue, QWidget* parent = nullptr);

    // Shows `queue` instead (one row per job it has); nothing selected.
    void setQueue(FilesQueue* queue);

    // The current row's job (-1: none).
    int selectedJob() const;
    // Every selected row's job, in queue order.
    QList<int> selectedJobs() const;
    // Makes `id`'s row the current, selected one; false when it has none.
    bool selectJob(int id);
    int rowOf(int id) const;
    int jobAt(int row) const;
    QProgressBar* progressBar(int id) const;

    // The status column's text: "Queued", "Transcribing: 2 segments so far", "Done: 3 segments,
    // language en", ...
    static QString statusText(const FileJob& job);

    // Takes the rows of `ids` off (their jobs already left the queue), without selection
    // signals: the page then says what is selected.
    void removeJobRows(const QList<int>& ids);

private:
    void addRow(int id);
    void showStatus(int id);
    void showProgress(int id);
    void showName(int id);

    FilesQueue* m_queue = nullptr;
};

}  // namespace earshot::ui
