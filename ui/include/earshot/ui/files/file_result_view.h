// FileResultView: one job of a FilesQueue as the Files page shows its result: a title saying
// where it is, its timed words with Play (FilePlayback), its segments with their times (filled
// while the job runs) and the clicked segment's times and tokens. It follows the queue's
// signals for the job it shows.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "earshot/ui/files/cross_attention_data.h"
#include "earshot/ui/files/file_job.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace earshot::ui {

class CrossAttentionView;
class FilePlayback;
class FileTimeline;
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

    // The decoder's size, for the heads picker: the alignment heads, or one of layers x heads.
    void setHeadChoices(int layers, int heads);
    // The map the app computed for `request`; shown when it is still the selected segment's.
    void showCrossAttention(const CrossAttentionRequest& request, const CrossAttentionMap& map);
    // The shown job's waveform for the timeline (see FileTimeline::setWaveform).
    void setWaveform(int job, const std::vector<float>& peaks, double durationS);
    // What the map of the selected segment is asked with now.
    CrossAttentionRequest crossAttentionRequest() const;

    QLabel* title() const { return m_title; }
    FileTimeline* timeline() const { return m_timeline; }
    CrossAttentionView* crossAttention() const { return m_attention; }
    QComboBox* headPicker() const { return m_heads; }

Q_SIGNALS:
    // A segment was selected (or the heads changed): the app computes its cross-attention map
    // off the UI thread and answers with showCrossAttention.
    void crossAttentionRequested(const earshot::ui::CrossAttentionRequest& request);
    // A job was shown: the app may read its waveform for the timeline.
    void waveformWanted(int job, const QString& path);

public:
    TranscriptWordsView* words() const { return m_words; }
    FilePlayback* playback() const { return m_playback; }
    QTableWidget* segmentTable() const { return m_segments; }
    QLabel* segmentTimeLabel() const { return m_segmentTime; }
    SegmentTokensView* segmentTokens() const { return m_tokens; }

private:
    void appendSegmentRow(const SegmentRow& segment);
    void segmentsAppended(int id, const QList<SegmentRow>& segments);
    QString wordsPlaceholder(const FileJob& job) const;
    QWidget* timelinePane();

    FilesQueue* m_queue = nullptr;
    QLabel* m_title = nullptr;
    TranscriptWordsView* m_words = nullptr;
    FilePlayback* m_playback = nullptr;
    QTableWidget* m_segments = nullptr;
    QLabel* m_segmentTime = nullptr;
    SegmentTokensView* m_tokens = nullptr;
    FileTimeline* m_timeline = nullptr;
    CrossAttentionView* m_attention = nullptr;
    QComboBox* m_heads = nullptr;
    int m_shown = -1;
    int m_selectedSegment = -1;
    int m_waveformJob = -1;  // the job whose waveform was asked for
};

}  // namespace earshot::ui
