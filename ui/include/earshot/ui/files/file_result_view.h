// FileResultView: one job of a FilesQueue as the Files page shows its result: a title saying
// where it is, its timed words with Play (FilePlayback), its segments with their times (filled
// while the job runs) and the clicked segment's times and tokens. It follows the queue's
// signals for the job it shows.
#pragma once

#include <QString>
#include <QWidget>

#include "earshot/ui/files/file_job.h"

class QLabel;
class QTableWidget;

namespace earshot::ui {

class FilePlayback;
class FilesQueue;
class SegmentTokensView;
class TranscriptWordsView;

class FileResultView : public QWidget {
    Q_OBJECT

public:
    explicit FileResultView(FilesQueue* queue, QWidget* parent = nullptr);

    // Follows `queue` instead; shows nothing.
    void setQueue(FilesQueue* queue);

    // Shows job `id` (what played stops when it is another file).
    void showJob(int id);
    // The hint to select a file; playback stops.
    void showNothing();
    // The job shown (-1: none).
    int shownJob() const { return m_shown; }
    // Shows one segment's start and end in the time line and its tokens (coloured by how sure
    // the decoder was) below that, and selects it.
    void selectSegment(int row);

    QLabel* title() const { return m_title; }
    TranscriptWordsView* words() const { return m_words; }
    FilePlayback* playback() const { return m_playback; }
    QTableWidget* segmentTable() const { return m_segments; }
    QLabel* segmentTimeLabel() const { return m_segmentTime; }
    SegmentTokensView* segmentTokens() const { return m_tokens; }

private:
    void appendSegmentRow(const SegmentRow& segment);
    void segmentsAppended(int id, const QList<SegmentRow>& segments);
    QString wordsPlaceholder(const FileJob& job) const;

    FilesQueue* m_queue = nullptr;
    QLabel* m_title = nullptr;
    TranscriptWordsView* m_words = nullptr;
    FilePlayback* m_playback = nullptr;
    QTableWidget* m_segments = nullptr;
    QLabel* m_segmentTime = nullptr;
    SegmentTokensView* m_tokens = nullptr;
    int m_shown = -1;
};

}  // namespace earshot::ui
