// FileResultView: the title, words, segment table, segment time and tokens of the shown job,
// redrawn when its state changes and extended as a running job's segments come in.
#include "earshot/ui/files/file_result_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPoint>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "earshot/ui/files/cross_attention_view.h"
#include "earshot/ui/files/file_playback.h"
#include "earshot/ui/files/file_timeline.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/files/segment_tokens_view.h"
#include "earshot/ui/files/transcript_words_view.h"

namespace earshot::ui {

namespace {

enum SegmentColumn { kStartColumn = 0, kEndColumn, kTextColumn, kSegmentColumns };

QString tokensHint() {
    return FileResultView::tr(
        "Click a segment to see its tokens, coloured by how sure the decoder was.");
}

QString attentionHint() {
    return FileResultView::tr(
        "Select a segment to see where its tokens look in the audio: the decoder's "
        "cross-attention, the path that times the words, and the words (click one to hear it).");
}

QString nothingShown() { return FileResultView::tr("Select a finished file to see its segments."); }

QTableWidgetItem* readOnlyItem(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    return item;
}

}  // namespace

FileResultView::FileResultView(FilesQueue* queue, QWidget* parent) : QWidget(parent) {
    m_title = new QLabel(nothingShown(), this);
    m_title->setObjectName(QStringLiteral("resultTitle"));
    m_segments = new QTableWidget(0, kSegmentColumns, this);
    m_segments->setObjectName(QStringLiteral("segmentTable"));
    m_segments->setHorizontalHeaderLabels({tr("Start"), tr("End"), tr("Text")});
    m_segments->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_segments->setSelectionMode(QAbstractItemView::SingleSelection);
    m_segments->setWordWrap(true);
    m_segments->verticalHeader()->hide();
    QHeaderView* header = m_segments->horizontalHeader();
    header->setSectionResizeMode(kStartColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(kEndColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(kTextColumn, QHeaderView::Stretch);
    connect(m_segments, &QTableWidget::cellClicked, this,
            [this](int row, int /*column*/) { selectSegment(row); });
    m_segmentTime = new QLabel(this);
    m_segmentTime->setObjectName(QStringLiteral("segmentTime"));
    m_segmentTime->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tokens = new SegmentTokensView(this);
    m_tokens->clear(tokensHint());
    m_words = new TranscriptWordsView(this);
    m_playback = new FilePlayback(m_words, this);
    m_timeline = new FileTimeline(this);
    m_attention = new CrossAttentionView(this);
    m_heads = new QComboBox(this);
    m_heads->setObjectName(QStringLiteral("crossAttentionHeads"));
    m_heads->setToolTip(
        tr("Whose cross-attention the map shows: the alignment heads that time "
           "the words, or one decoder head"));
    setHeadChoices(0, 0);
    connect(m_timeline, &FileTimeline::segmentClicked, this, &FileResultView::selectSegment);
    connect(
        m_attention, &CrossAttentionView::wordClicked, this,
        [this](int /*index*/, double startS, double endS) { m_playback->playRange(startS, endS); });
    connect(m_heads, &QComboBox::currentIndexChanged, this, [this] {
        if (m_shown >= 0 && m_selectedSegment >= 0) selectSegment(m_selectedSegment);
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_playback);
    auto* texts = new QSplitter(Qt::Vertical, this);
    texts->setChildrenCollapsible(false);
    texts->addWidget(m_words);
    texts->addWidget(m_segments);
    texts->addWidget(timelinePane());
    texts->setStretchFactor(0, 1);
    texts->setStretchFactor(1, 1);
    texts->setStretchFactor(2, 2);
    layout->addWidget(texts, 1);
    layout->addWidget(m_segmentTime);
    layout->addWidget(m_tokens);
    setQueue(queue);
}

QWidget* FileResultView::timelinePane() {
    auto* pane = new QWidget(this);
    auto* heads = new QHBoxLayout;
    heads->addWidget(new QLabel(tr("Cross-attention of"), pane));
    heads->addWidget(m_heads);
    heads->addStretch(1);
    auto* scroll = new QScrollArea(pane);
    scroll->setWidget(m_attention);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_timeline);
    layout->addLayout(heads);
    layout->addWidget(scroll, 1);
    return pane;
}

void FileResultView::setHeadChoices(int layers, int heads) {
    const QSignalBlocker blocker(m_heads);
    m_heads->clear();
    m_heads->addItem(tr("the alignment heads"), QPoint(-1, -1));
    for (int layer = 0; layer < layers; ++layer) {
        for (int head = 0; head < heads; ++head) {
            m_heads->addItem(tr("layer %1, head %2").arg(layer).arg(head), QPoint(layer, head));
        }
    }
}

CrossAttentionRequest FileResultView::crossAttentionRequest() const {
    const QPoint head = m_heads->currentData().toPoint();
    return {m_shown, m_selectedSegment, head.x(), head.y()};
}

void FileResultView::showCrossAttention(const CrossAttentionRequest& request,
                                        const CrossAttentionMap& map) {
    const CrossAttentionRequest now = crossAttentionRequest();
    if (request.job != now.job || request.segment != now.segment || request.layer != now.layer ||
        request.head != now.head) {
        return;  // another segment or head was chosen since
    }
    if (!map.message.isEmpty()) {
        m_attention->clear(map.message);
    } else {
        m_attention->setMap(map);
    }
}

void FileResultView::setWaveform(int job, const std::vector<float>& peaks, double durationS) {
    if (job == m_shown) m_timeline->setWaveform(peaks, durationS);
}

void FileResultView::setQueue(FilesQueue* queue) {
    if (m_queue != nullptr) {
        disconnect(m_queue, nullptr, this, nullptr);
    }
    m_queue = queue;
    connect(m_queue, &FilesQueue::jobStateChanged, this, [this](int id) {
        if (id == m_shown) showJob(id);
    });
    connect(m_queue, &FilesQueue::jobRenamed, this, [this](int id) {
        if (id == m_shown) showJob(id);  // its title names it
    });
    connect(m_queue, &FilesQueue::segmentsAppended, this, &FileResultView::segmentsAppended);
    showNothing();
}

void FileResultView::showNothing() {
    m_shown = -1;
    m_playback->setSource(-1, QString(), false);
    m_words->clear();
    m_playback->showState();
    m_segments->setRowCount(0);
    m_segmentTime->clear();
    m_tokens->clear(tokensHint());
    m_title->setText(nothingShown());
    m_selectedSegment = -1;
    m_timeline->setWaveform({}, 0.0);
    m_timeline->setSegments({}, 0.0);
    m_timeline->setSelected(-1);
    m_attention->clear(attentionHint());
}

void FileResultView::appendSegmentRow(const SegmentRow& segment) {
    const int row = m_segments->rowCount();
    m_segments->insertRow(row);
    m_segments->setItem(row, kStartColumn, readOnlyItem(formatSegmentTime(segment.startS)));
    m_segments->setItem(row, kEndColumn, readOnlyItem(formatSegmentTime(segment.endS)));
    m_segments->setItem(row, kTextColumn, readOnlyItem(segment.text));
    m_segments->resizeRowToContents(row);
}

void FileResultView::showJob(int id) {
    const FileJob job = m_queue->job(id);
    if (id != m_shown) {
        m_timeline->setWaveform({}, 0.0);
        m_waveformJob = -1;
    }
    // Once it is transcribed (shown while it ran, or picked afterwards): its waveform, once.
    if (m_waveformJob != id &&
        (job.state == FileJobState::done || job.state == FileJobState::cancelled)) {
        m_waveformJob = id;
        Q_EMIT waveformWanted(id, job.path);
    }
    m_shown = id;
    m_selectedSegment = -1;
    m_timeline->setSegments(job.segments, 0.0);
    m_timeline->setSelected(-1);
    m_attention->clear(attentionHint());
    m_playback->setSource(id, job.path, job.state != FileJobState::failed);
    m_words->setSegments(job.segments, wordsPlaceholder(job));
    m_playback->showState();
    m_segments->setRowCount(0);
    m_segmentTime->clear();
    m_tokens->clear(tokensHint());
    const QString count = segmentCount(static_cast<int>(job.segments.size()));
    switch (job.state) {
        case FileJobState::queued:
            m_title->setText(tr("%1 is waiting in the queue.").arg(job.name));
            return;
        case FileJobState::running:
            m_title->setText(job.segments.isEmpty()
                                 ? tr("%1 is being transcribed…").arg(job.name)
                                 : tr("%1 is being transcribed… %2 so far").arg(job.name, count));
            for (const SegmentRow& segment : job.segments) {
                appendSegmentRow(segment);
            }
            return;
        case FileJobState::failed:
            m_title->setText(tr("%1 failed: %2").arg(job.name, job.message));
            return;
        case FileJobState::done:
        case FileJobState::cancelled:
            break;
    }
    m_title->setText(tr("%1: %2").arg(job.name, count) +
                     (job.language.isEmpty() ? QString() : tr(" · language %1").arg(job.language)) +
                     (job.state == FileJobState::cancelled ? tr(" · cancelled") : QString()));
    for (const SegmentRow& segment : job.segments) {
        appendSegmentRow(segment);
    }
}

void FileResultView::segmentsAppended(int id, const QList<SegmentRow>& segments) {
    if (id != m_shown) {
        return;
    }
    const FileJob job = m_queue->job(id);
    m_title->setText(tr("%1 is being transcribed… %2 so far")
                         .arg(job.name, segmentCount(static_cast<int>(job.segments.size()))));
    for (const SegmentRow& segment : segments) {
        appendSegmentRow(segment);
    }
    m_timeline->setSegments(job.segments, 0.0);
    const int highlighted = m_words->highlightedWord();
    m_words->setSegments(job.segments, wordsPlaceholder(job));
    m_words->setHighlightedWord(highlighted);
}

void FileResultView::selectSegment(int row) {
    if (m_shown < 0) {
        return;
    }
    const QList<SegmentRow> segments = m_queue->jobSegments(m_shown);
    if (row < 0 || row >= segments.size()) {
        return;
    }
    const SegmentRow& segment = segments[row];
    m_segments->selectRow(row);
    m_segmentTime->setText(
        tr("Segment %1: %2 → %3 (%4 s)")
            .arg(row + 1)
            .arg(formatSegmentTime(segment.startS), formatSegmentTime(segment.endS))
            .arg(segment.endS - segment.startS, 0, 'f', 2));
    m_tokens->setTokens(segment.tokens, tr("The tokens of this segment were not kept."));
    m_selectedSegment = row;
    m_timeline->setSelected(row);
    m_attention->clear(tr("Computing the cross-attention of segment %1…").arg(row + 1));
    Q_EMIT crossAttentionRequested(crossAttentionRequest());
}

QString FileResultView::wordsPlaceholder(const FileJob& job) const {
    switch (job.state) {
        case FileJobState::queued:
            return tr("The words appear here with their times once the file is transcribed.");
        case FileJobState::running:
            return job.segments.isEmpty()
                       ? tr("The words appear here with their times as they are transcribed.")
                       : tr("No word times: this backend does not return the cross-attention "
                            "weights they are aligned on (the CPU and CUDA backends do).");
        case FileJobState::failed:
            return {};
        case FileJobState::done:
        case FileJobState::cancelled:
            break;
    }
    return job.segments.isEmpty()
               ? tr("No words were transcribed.")
               : tr("No word times for this result: it was transcribed on a backend that does "
                    "not return the cross-attention weights they are aligned on (the CPU and CUDA "
                    "backends do), or kept before word times were. Play still plays the file.");
}

}  // namespace earshot::ui
