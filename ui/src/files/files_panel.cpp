// FilesPanel: the queue table (file, progress bar, status), the result of the selected job (its
// timed words with Play, a segment table, filled while the job runs, and the clicked segment's
// times and tokens) and the dialogs that add, export and export all files.
#include "earshot/ui/files/files_panel.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>

#include "earshot/ui/files/distinct_file_names.h"
#include "earshot/ui/files/export_all_dialog.h"
#include "earshot/ui/files/export_targets.h"
#include "earshot/ui/files/segment_tokens_view.h"
#include "earshot/ui/files/transcript_words_view.h"

namespace earshot::ui {

namespace {

enum QueueColumn { kFileColumn = 0, kProgressColumn, kStatusColumn, kQueueColumns };
enum SegmentColumn { kStartColumn = 0, kEndColumn, kTextColumn, kSegmentColumns };
constexpr int kProgressSteps = 1000;  // progress bars count per mille

QString tokensHint() {
    return FilesPanel::tr(
        "Click a segment to see its tokens, coloured by how sure the decoder was.");
}

QTableWidgetItem* readOnlyItem(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    return item;
}

}  // namespace

QString formatSegmentTime(double seconds) {
    const qint64 totalMs = std::llround(std::max(0.0, seconds) * 1000.0);
    const qint64 hours = totalMs / 3'600'000;
    const qint64 minutes = totalMs / 60'000 % 60;
    const qint64 secs = totalMs / 1000 % 60;
    const qint64 ms = totalMs % 1000;
    const QString rest = QStringLiteral("%1:%2.%3")
                             .arg(minutes, 2, 10, QLatin1Char('0'))
                             .arg(secs, 2, 10, QLatin1Char('0'))
                             .arg(ms, 3, 10, QLatin1Char('0'));
    return hours > 0 ? QStringLiteral("%1:%2").arg(hours).arg(rest) : rest;
}

QString segmentCount(int count) {
    // Without a translation loaded, tr's %n only puts in the number: English's singular is here.
    return count == 1 ? FilesPanel::tr("1 segment") : FilesPanel::tr("%n segments", nullptr, count);
}

FilesPanel::FilesPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("filesPanel"));
    setAcceptDrops(true);

    m_add = new QPushButton(tr("&Add files…"), this);
    m_add->setObjectName(QStringLiteral("addFilesButton"));
    connect(m_add, &QPushButton::clicked, this, &FilesPanel::chooseFiles);
    m_cancel = new QPushButton(tr("Ca&ncel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelFileButton"));
    connect(m_cancel, &QPushButton::clicked, this, &FilesPanel::cancelSelected);
    m_remove = new QPushButton(tr("&Remove"), this);
    m_remove->setObjectName(QStringLiteral("removeFileButton"));
    m_remove->setToolTip(
        tr("Takes the selected files off the list (one being transcribed is cancelled) and "
           "forgets their results."));
    connect(m_remove, &QPushButton::clicked, this, &FilesPanel::removeSelected);
    m_clearFinished = new QPushButton(tr("C&lear finished"), this);
    m_clearFinished->setObjectName(QStringLiteral("clearFinishedButton"));
    m_clearFinished->setToolTip(
        tr("Takes every done, failed and cancelled file off the list (after asking: their "
           "stored transcripts go too)."));
    connect(m_clearFinished, &QPushButton::clicked, this, &FilesPanel::clearFinished);
    m_export = new QPushButton(tr("&Export"), this);
    m_export->setObjectName(QStringLiteral("exportButton"));
    auto* exportMenu = new QMenu(m_export);
    for (const QString& format : {QStringLiteral("txt"), QStringLiteral("srt"),
                                  QStringLiteral("vtt"), QStringLiteral("json")}) {
        QAction* action = exportMenu->addAction(tr("%1…").arg(format.toUpper()));
        action->setObjectName(QStringLiteral("export_") + format);
        connect(action, &QAction::triggered, this, [this, format] { exportSelected(format); });
    }
    m_export->setMenu(exportMenu);
    m_exportAll = new QPushButton(tr("Export a&ll…"), this);
    m_exportAll->setObjectName(QStringLiteral("exportAllButton"));
    connect(m_exportAll, &QPushButton::clicked, this, &FilesPanel::exportAll);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_remove);
    buttons->addWidget(m_clearFinished);
    buttons->addStretch(1);
    buttons->addWidget(new QLabel(tr("Drop audio files here to queue them."), this));
    buttons->addStretch(1);
    buttons->addWidget(m_export);
    buttons->addWidget(m_exportAll);

    m_queue = new QTableWidget(0, kQueueColumns, this);
    m_queue->setObjectName(QStringLiteral("fileQueue"));
    m_queue->setHorizontalHeaderLabels({tr("File"), tr("Progress"), tr("Status")});
    m_queue->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_queue->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_queue->verticalHeader()->hide();
    m_queue->horizontalHeader()->setSectionResizeMode(kFileColumn, QHeaderView::Stretch);
    m_queue->horizontalHeader()->setSectionResizeMode(kProgressColumn, QHeaderView::Fixed);
    m_queue->horizontalHeader()->resizeSection(kProgressColumn, 200);
    m_queue->horizontalHeader()->setSectionResizeMode(kStatusColumn, QHeaderView::Stretch);
    // At least five rows show: the result below must not squeeze a queue of files to two.
    constexpr int kQueueRowsShown = 5;
    m_queue->setMinimumHeight(m_queue->horizontalHeader()->sizeHint().height() +
                              kQueueRowsShown * m_queue->verticalHeader()->defaultSectionSize() +
                              2 * m_queue->frameWidth());
    connect(m_queue, &QTableWidget::itemSelectionChanged, this, [this] {
        const int row = m_queue->currentRow();
        if (row >= 0 && row < m_order.size() && m_order[row] != m_shown) {
            showResult(m_order[row]);
        }
        updateButtons();
    });

    m_resultTitle = new QLabel(tr("Select a finished file to see its segments."), this);
    m_resultTitle->setObjectName(QStringLiteral("resultTitle"));
    m_segments = new QTableWidget(0, kSegmentColumns, this);
    m_segments->setObjectName(QStringLiteral("segmentTable"));
    m_segments->setHorizontalHeaderLabels({tr("Start"), tr("End"), tr("Text")});
    m_segments->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_segments->setSelectionMode(QAbstractItemView::SingleSelection);
    m_segments->setWordWrap(true);
    m_segments->verticalHeader()->hide();
    m_segments->horizontalHeader()->setSectionResizeMode(kStartColumn,
                                                         QHeaderView::ResizeToContents);
    m_segments->horizontalHeader()->setSectionResizeMode(kEndColumn, QHeaderView::ResizeToContents);
    m_segments->horizontalHeader()->setSectionResizeMode(kTextColumn, QHeaderView::Stretch);
    connect(m_segments, &QTableWidget::cellClicked, this,
            [this](int row, int /*column*/) { selectSegment(row); });
    m_segmentTime = new QLabel(this);
    m_segmentTime->setObjectName(QStringLiteral("segmentTime"));
    m_segmentTime->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tokens = new SegmentTokensView(this);
    m_tokens->clear(tokensHint());

    m_words = new TranscriptWordsView(this);
    connect(m_words, &TranscriptWordsView::wordClicked, this,
            [this](int index) { playFrom(m_words->word(index).startS); });
    m_play = new QPushButton(tr("&Play"), this);
    m_play->setObjectName(QStringLiteral("playButton"));
    m_play->setToolTip(
        tr("Plays the file; the word being heard is highlighted. Click a word to "
           "play from it."));
    connect(m_play, &QPushButton::clicked, this, &FilesPanel::togglePlayback);
    m_playback = new QLabel(this);
    m_playback->setObjectName(QStringLiteral("playbackTime"));
    m_playback->setWordWrap(true);
    m_playback->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(kPlaybackTickMs);
    connect(m_playTimer, &QTimer::timeout, this, &FilesPanel::updatePlayback);
    auto* transport = new QHBoxLayout;
    transport->addWidget(m_play);
    transport->addWidget(m_playback, 1);

    auto* result = new QWidget(this);
    auto* resultLayout = new QVBoxLayout(result);
    resultLayout->setContentsMargins(0, 0, 0, 0);
    resultLayout->addWidget(m_resultTitle);
    resultLayout->addLayout(transport);
    auto* texts = new QSplitter(Qt::Vertical, result);
    texts->setChildrenCollapsible(false);
    texts->addWidget(m_words);
    texts->addWidget(m_segments);
    texts->setStretchFactor(0, 1);
    texts->setStretchFactor(1, 1);
    resultLayout->addWidget(texts, 1);
    resultLayout->addWidget(m_segmentTime);
    resultLayout->addWidget(m_tokens);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_queue);
    splitter->addWidget(result);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(splitter, 1);
    updateButtons();
}

FilesPanel::~FilesPanel() {
    if (m_player) {
        m_player->pause();
    }
}

void FilesPanel::setPlayer(std::unique_ptr<TranscriptPlayer> player) {
    stopPlayback();
    m_player = std::move(player);
    showPlaybackState();
}

QString FilesPanel::audioFileFilter() {
    return tr(
        "Audio and video (*.wav *.mp3 *.flac *.ogg *.opus *.m4a *.aac *.wma *.mp4 *.mkv "
        "*.webm *.mov);;All files (*)");
}

int FilesPanel::appendJob(const QString& path) {
    const int id = m_nextId++;
    Job job;
    job.path = path;
    const int row = m_queue->rowCount();
    m_queue->insertRow(row);
    job.name = QFileInfo(path).fileName();
    auto* name = readOnlyItem(job.name);
    name->setToolTip(path);
    m_queue->setItem(row, kFileColumn, name);
    auto* bar = new QProgressBar(m_queue);
    bar->setRange(0, kProgressSteps);
    bar->setValue(0);
    bar->setFormat(QStringLiteral("%p%"));
    m_queue->setCellWidget(row, kProgressColumn, bar);
    m_queue->setItem(row, kStatusColumn, readOnlyItem(tr("Queued")));
    m_jobs.insert(id, job);
    m_order.append(id);
    refreshNames();
    return id;
}

void FilesPanel::refreshNames() {
    QStringList paths;
    for (int id : m_order) {
        paths.append(m_jobs[id].path);
    }
    const QStringList names = distinctFileNames(paths);
    for (int row = 0; row < m_order.size(); ++row) {
        Job& job = m_jobs[m_order[row]];
        if (job.name == names[row]) {
            continue;
        }
        job.name = names[row];
        if (QTableWidgetItem* item = m_queue->item(row, kFileColumn)) {
            item->setText(job.name);
        }
        if (m_shown == m_order[row]) {
            showResult(m_shown);  // its title names it
        }
    }
}

QList<int> FilesPanel::addFiles(const QStringList& paths) {
    QList<int> ids;
    for (const QString& path : paths) {
        const int id = appendJob(path);
        ids.append(id);
        emit jobQueued(id, path);
    }
    if (m_queue->currentRow() < 0 && !ids.isEmpty()) {
        selectJob(ids.first());
    }
    updateButtons();
    return ids;
}

int FilesPanel::addFinishedJob(const QString& path, const QList<SegmentRow>& segments,
                               const QString& language, FileJobState state) {
    const int id = appendJob(path);
    if (state == FileJobState::cancelled) {
        m_jobs[id].language = language;
        setJobCancelled(id, segments);
    } else {
        setJobFinished(id, segments, language);
    }
    return id;
}

int FilesPanel::unfinishedJobs() const {
    int count = 0;
    for (const Job& job : m_jobs) {
        count += job.state == FileJobState::queued || job.state == FileJobState::running ? 1 : 0;
    }
    return count;
}

int FilesPanel::rowOf(int id) const { return static_cast<int>(m_order.indexOf(id)); }

QProgressBar* FilesPanel::progressBar(int id) const {
    const int row = rowOf(id);
    return row < 0 ? nullptr
                   : qobject_cast<QProgressBar*>(m_queue->cellWidget(row, kProgressColumn));
}

void FilesPanel::setState(int id, FileJobState state, const QString& status) {
    const int row = rowOf(id);
    if (row < 0) {
        return;
    }
    m_jobs[id].state = state;
    m_queue->item(row, kStatusColumn)->setText(status);
    m_queue->item(row, kStatusColumn)->setToolTip(status);
    if (m_shown == id) {
        showResult(id);
    }
    updateButtons();
}

void FilesPanel::setJobRunning(int id) {
    if (m_jobs.contains(id)) {
        m_jobs[id].segments.clear();
    }
    setState(id, FileJobState::running, tr("Transcribing"));
}

void FilesPanel::setJobPaused(int id, bool paused) {
    const auto it = m_jobs.find(id);
    const int row = rowOf(id);
    if (it == m_jobs.end() || it->state != FileJobState::running || row < 0) {
        return;
    }
    const QString count = segmentCount(static_cast<int>(it->segments.size()));
    QString status = paused ? tr("Paused while you dictate") : tr("Transcribing");
    if (!it->segments.isEmpty()) status += tr(": %1 so far").arg(count);
    m_queue->item(row, kStatusColumn)->setText(status);
    m_queue->item(row, kStatusColumn)->setToolTip(status);
}

void FilesPanel::appendJobSegments(int id, const QList<SegmentRow>& segments) {
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end() || it->state != FileJobState::running || segments.isEmpty()) {
        return;
    }
    it->segments.append(segments);
    const QString count = segmentCount(static_cast<int>(it->segments.size()));
    const int row = rowOf(id);
    m_queue->item(row, kStatusColumn)->setText(tr("Transcribing: %1 so far").arg(count));
    if (m_shown == id) {
        m_resultTitle->setText(tr("%1 is being transcribed… %2 so far").arg(it->name, count));
        for (const SegmentRow& segment : segments) {
            appendSegmentRow(segment);
        }
        const int highlighted = m_words->highlightedWord();
        m_words->setSegments(it->segments, wordsPlaceholder(*it));
        m_words->setHighlightedWord(highlighted);
    }
}

void FilesPanel::setJobProgress(int id, double fraction) {
    if (QProgressBar* bar = progressBar(id)) {
        bar->setValue(
            static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * kProgressSteps)));
    }
}

void FilesPanel::setJobFinished(int id, const QList<SegmentRow>& segments,
                                const QString& language) {
    if (!m_jobs.contains(id)) {
        return;
    }
    m_jobs[id].segments = segments;
    m_jobs[id].language = language;
    setJobProgress(id, 1.0);
    setState(id, FileJobState::done,
             tr("Done: %1").arg(segmentCount(static_cast<int>(segments.size()))) +
                 (language.isEmpty() ? QString() : tr(", language %1").arg(language)));
}

void FilesPanel::setJobFailed(int id, const QString& message) {
    if (!m_jobs.contains(id)) {
        return;
    }
    // The row names the file already: "path: problem" reads as just the problem.
    const QString prefix = m_jobs[id].path + QStringLiteral(": ");
    m_jobs[id].message = message.startsWith(prefix) ? message.mid(prefix.size()) : message;
    setState(id, FileJobState::failed, tr("Failed: %1").arg(m_jobs[id].message));
}

void FilesPanel::setJobCancelled(int id, const QList<SegmentRow>& partial) {
    if (!m_jobs.contains(id)) {
        return;
    }
    m_jobs[id].segments = partial;
    setState(id, FileJobState::cancelled,
             partial.isEmpty()
                 ? tr("Cancelled")
                 : tr("Cancelled after %1").arg(segmentCount(static_cast<int>(partial.size()))));
}

FileJobState FilesPanel::jobState(int id) const { return m_jobs.value(id).state; }
QString FilesPanel::jobPath(int id) const { return m_jobs.value(id).path; }
QList<int> FilesPanel::jobIds() const { return m_order; }
QList<SegmentRow> FilesPanel::jobSegments(int id) const { return m_jobs.value(id).segments; }

int FilesPanel::selectedJob() const {
    const int row = m_queue->currentRow();
    return row >= 0 && row < m_order.size() ? m_order[row] : -1;
}

QList<int> FilesPanel::selectedJobs() const {
    QList<int> ids;
    for (int row = 0; row < m_order.size(); ++row) {
        if (m_queue->selectionModel()->isRowSelected(row, QModelIndex())) {
            ids.append(m_order[row]);
        }
    }
    return ids;
}

QList<int> FilesPanel::exportableJobs() const {
    QList<int> ids;
    for (int id : m_order) {
        const Job job = m_jobs.value(id);
        if (job.state == FileJobState::done ||
            (job.state == FileJobState::cancelled && !job.segments.isEmpty())) {
            ids.append(id);
        }
    }
    return ids;
}

void FilesPanel::removeJobs(const QList<int>& ids) {
    QList<int> removed;
    {
        const QSignalBlocker blocker(m_queue);
        for (int id : ids) {
            const int row = rowOf(id);
            if (row < 0) {
                continue;
            }
            if (id == m_playedJob) {
                stopPlayback();
            }
            m_order.removeAt(row);
            m_jobs.remove(id);
            m_queue->removeRow(row);
            removed.append(id);
        }
    }
    if (removed.isEmpty()) {
        return;
    }
    refreshNames();
    const int current = m_queue->currentRow();
    if (current >= 0 && current < m_order.size()) {
        m_queue->selectRow(current);
        showResult(m_order[current]);
    } else if (!m_order.isEmpty()) {
        selectJob(m_order.last());
    } else {
        showNothing();
    }
    updateButtons();
    emit jobsRemoved(removed);
}

void FilesPanel::selectJob(int id) {
    const int row = rowOf(id);
    if (row >= 0) {
        m_queue->selectRow(row);
        showResult(id);
    }
}

void FilesPanel::showNothing() {
    m_shown = -1;
    stopPlayback();
    m_words->clear();
    showPlaybackState();
    m_segments->setRowCount(0);
    m_segmentTime->clear();
    m_tokens->clear(tokensHint());
    m_resultTitle->setText(tr("Select a finished file to see its segments."));
}

void FilesPanel::appendSegmentRow(const SegmentRow& segment) {
    const int row = m_segments->rowCount();
    m_segments->insertRow(row);
    m_segments->setItem(row, kStartColumn, readOnlyItem(formatSegmentTime(segment.startS)));
    m_segments->setItem(row, kEndColumn, readOnlyItem(formatSegmentTime(segment.endS)));
    m_segments->setItem(row, kTextColumn, readOnlyItem(segment.text));
    m_segments->resizeRowToContents(row);
}

void FilesPanel::showResult(int id) {
    if (id != m_playedJob) {
        stopPlayback();  // another file: what played stops
    }
    m_shown = id;
    const Job& job = m_jobs[id];
    const QString name = job.name;
    m_words->setSegments(job.segments, wordsPlaceholder(job));
    showPlaybackState();
    m_segments->setRowCount(0);
    m_segmentTime->clear();
    m_tokens->clear(tokensHint());
    switch (job.state) {
        case FileJobState::queued:
            m_resultTitle->setText(tr("%1 is waiting in the queue.").arg(name));
            return;
        case FileJobState::running:
            m_resultTitle->setText(
                job.segments.isEmpty()
                    ? tr("%1 is being transcribed…").arg(name)
                    : tr("%1 is being transcribed… %2 so far")
                          .arg(name, segmentCount(static_cast<int>(job.segments.size()))));
            for (const SegmentRow& segment : job.segments) {
                appendSegmentRow(segment);
            }
            return;
        case FileJobState::failed:
            m_resultTitle->setText(tr("%1 failed: %2").arg(name, job.message));
            return;
        case FileJobState::done:
        case FileJobState::cancelled:
            break;
    }
    m_resultTitle->setText(
        tr("%1: %2").arg(name, segmentCount(static_cast<int>(job.segments.size()))) +
        (job.language.isEmpty() ? QString() : tr(" · language %1").arg(job.language)) +
        (job.state == FileJobState::cancelled ? tr(" · cancelled") : QString()));
    for (const SegmentRow& segment : job.segments) {
        appendSegmentRow(segment);
    }
}

void FilesPanel::selectSegment(int row) {
    if (m_shown < 0 || row < 0 || row >= m_jobs[m_shown].segments.size()) {
        return;
    }
    const SegmentRow& segment = m_jobs[m_shown].segments[row];
    m_segments->selectRow(row);
    m_segmentTime->setText(
        tr("Segment %1: %2 → %3 (%4 s)")
            .arg(row + 1)
            .arg(formatSegmentTime(segment.startS), formatSegmentTime(segment.endS))
            .arg(segment.endS - segment.startS, 0, 'f', 2));
    m_tokens->setTokens(segment.tokens, tr("The tokens of this segment were not kept."));
}

QString FilesPanel::wordsPlaceholder(const Job& job) const {
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

void FilesPanel::stopPlayback() {
    m_playTimer->stop();
    if (m_player && m_playedJob >= 0) {
        m_player->pause();
    }
    m_playedJob = -1;
    m_words->setHighlightedWord(-1);
}

void FilesPanel::showPlaybackState() {
    const bool shown = m_shown >= 0 && m_jobs.value(m_shown).state != FileJobState::failed;
    m_play->setEnabled(shown);
    const bool playing = m_player && m_playedJob >= 0 && m_player->isPlaying();
    const std::optional<double> reading =
        m_player && m_playedJob >= 0 ? m_player->reading() : std::nullopt;
    // Reading and set to play once read: Pause keeps it from starting; after that, Play.
    const bool starting = reading && m_player->playsWhenRead();
    m_play->setText(playing || starting ? tr("&Pause") : tr("&Play"));
    if (!shown) {
        m_playback->clear();
    } else if (reading) {
        m_playback->setText(tr("Reading the audio… %1%").arg(std::lround(*reading * 100.0)));
    } else if (m_playedJob < 0 || !m_player) {
        m_playback->setText(m_words->wordCount() > 0 ? tr("Click a word to play from it.")
                                                     : QString());
    } else {
        const double duration = m_player->durationS();
        m_playback->setText(duration > 0.0
                                ? tr("%1 / %2").arg(formatSegmentTime(m_player->positionS()),
                                                    formatSegmentTime(duration))
                                : formatSegmentTime(m_player->positionS()));
    }
}

void FilesPanel::playFrom(double seconds) {
    if (m_shown < 0) {
        return;
    }
    if (!m_player) {
        m_playback->setText(tr("Playing is not available here."));
        return;
    }
    const QString error = m_player->play(m_jobs[m_shown].path, std::max(0.0, seconds));
    if (!error.isEmpty()) {
        cannotPlay(error);
        return;
    }
    // Playing, or reading the file first (the timer's ticks advance the read and say how far).
    m_playedJob = m_shown;
    m_playTimer->start();
    updatePlayback();
}

void FilesPanel::cannotPlay(const QString& reason) {
    stopPlayback();
    showPlaybackState();
    m_playback->setText(tr("Cannot play: %1").arg(reason));
}

void FilesPanel::togglePlayback() {
    if (m_player && m_playedJob >= 0 && m_player->reading() && m_player->playsWhenRead()) {
        m_player->pause();  // the read goes on (the timer advances it); it will not play
        showPlaybackState();
        return;
    }
    if (m_player && m_playedJob >= 0 && m_player->isPlaying()) {
        m_playTimer->stop();
        m_player->pause();
        updatePlayback();
        return;
    }
    double from = 0.0;
    if (m_player && m_playedJob == m_shown) {
        from = m_player->positionS();
        const double duration = m_player->durationS();
        if (duration > 0.0 && from >= duration - 0.01) {
            from = 0.0;  // it ended: again from the start
        }
    }
    playFrom(from);
}

void FilesPanel::updatePlayback() {
    if (!m_player || m_playedJob < 0) {
        m_playTimer->stop();
        return;
    }
    const QString error = m_player->poll();
    if (!error.isEmpty()) {
        cannotPlay(error);
        return;
    }
    m_words->highlightAt(m_player->positionS());
    if (!m_player->isPlaying() && !m_player->reading()) {
        m_playTimer->stop();
    }
    showPlaybackState();
}

void FilesPanel::updateButtons() {
    const int id = selectedJob();
    const FileJobState state = id < 0 ? FileJobState::failed : m_jobs[id].state;
    m_cancel->setEnabled(id >= 0 &&
                         (state == FileJobState::queued || state == FileJobState::running));
    m_export->setEnabled(id >= 0 &&
                         (state == FileJobState::done || state == FileJobState::cancelled));
    m_remove->setEnabled(!selectedJobs().isEmpty());
    m_clearFinished->setEnabled(std::any_of(m_order.begin(), m_order.end(), [this](int job) {
        const FileJobState s = m_jobs[job].state;
        return s == FileJobState::done || s == FileJobState::failed || s == FileJobState::cancelled;
    }));
    m_exportAll->setEnabled(!exportableJobs().isEmpty());
}

void FilesPanel::chooseFiles() {
    const QStringList paths =
        QFileDialog::getOpenFileNames(this, tr("Transcribe files"), QString(), audioFileFilter());
    if (!paths.isEmpty()) {
        addFiles(paths);
    }
}

void FilesPanel::cancelSelected() {
    const int id = selectedJob();
    if (id >= 0 &&
        (m_jobs[id].state == FileJobState::queued || m_jobs[id].state == FileJobState::running)) {
        emit cancelRequested(id);
    }
}

void FilesPanel::removeSelected() { removeJobs(selectedJobs()); }

void FilesPanel::clearFinished() {
    QList<int> finished;
    int results = 0;
    int failures = 0;
    for (int id : m_order) {
        const Job& job = m_jobs[id];
        if (job.state == FileJobState::failed) {
            ++failures;
        } else if (job.state == FileJobState::done || job.state == FileJobState::cancelled) {
            results += 1;
        } else {
            continue;
        }
        finished.append(id);
    }
    if (finished.isEmpty()) {
        return;
    }
    // Stored transcripts go with their rows: the user says yes first.
    QStringList consequences;
    if (results > 0) {
        consequences.append(
            results == 1 ? tr("1 transcript is deleted from Earshot (exported files stay).")
                         : tr("%1 transcripts are deleted from Earshot (exported files stay).")
                               .arg(results));
    }
    if (failures > 0) {
        consequences.append(
            failures == 1 ? tr("1 failed file and its error go from the list.")
                          : tr("%1 failed files and their errors go from the list.").arg(failures));
    }
    auto* confirm = new QMessageBox(
        QMessageBox::Question, tr("Clear finished files"),
        finished.size() == 1 ? tr("Take 1 finished file off the list?")
                             : tr("Take %1 finished files off the list?").arg(finished.size()),
        QMessageBox::NoButton, this);
    confirm->setObjectName(QStringLiteral("clearFinishedConfirm"));
    confirm->setInformativeText(consequences.join(QLatin1Char(' ')) +
                                tr(" The audio files are not touched."));
    QPushButton* clear = confirm->addButton(tr("&Clear"), QMessageBox::DestructiveRole);
    clear->setObjectName(QStringLiteral("clearFinishedConfirmButton"));
    confirm->addButton(QMessageBox::Cancel);
    confirm->setDefaultButton(QMessageBox::Cancel);
    confirm->setAttribute(Qt::WA_DeleteOnClose);
    connect(confirm, &QMessageBox::finished, this, [this, confirm, clear, finished] {
        if (confirm->clickedButton() == clear) {
            removeJobs(finished);  // rows finished since still go; ones already removed are skipped
        }
    });
    confirm->open();
}

void FilesPanel::exportAll() {
    const QList<int> ids = exportableJobs();
    if (ids.isEmpty()) {
        return;
    }
    QList<QPair<int, QString>> inputs;
    for (int id : ids) {
        inputs.append({id, m_jobs[id].path});
    }
    ExportAllDialog dialog(static_cast<int>(ids.size()),
                           QFileInfo(inputs.first().second).absolutePath(), this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    const QString folder = QDir::cleanPath(dialog.folder());
    emit exportAllRequested(exportTargets(inputs, dialog.formats(), folder), folder);
}

void FilesPanel::exportSelected(const QString& format) {
    const int id = selectedJob();
    if (id < 0) {
        return;
    }
    const QFileInfo input(m_jobs[id].path);
    const QString suggested = input.absolutePath() + QLatin1Char('/') + input.completeBaseName() +
                              QLatin1Char('.') + format;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1").arg(format.toUpper()), suggested,
        tr("%1 files (*.%2);;All files (*)").arg(format.toUpper(), format));
    if (!path.isEmpty()) {
        emit exportRequested(id, format, path);
    }
}

void FilesPanel::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        for (const QUrl& url : event->mimeData()->urls()) {
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
        }
    }
}

void FilesPanel::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile()) {
            paths.append(url.toLocalFile());
        }
    }
    if (!paths.isEmpty()) {
        addFiles(paths);
        event->acceptProposedAction();
    }
}

}  // namespace earshot::ui
