// FilesPanel: the buttons over the queue and the result, the drop target, the dialogs that add,
// export and export all files and ask before clearing finished ones; the queue and the result
// are FilesQueueView's and FileResultView's.
#include "earshot/ui/files/files_panel.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QUrl>
#include <QVBoxLayout>

#include "earshot/ui/files/export_all_dialog.h"
#include "earshot/ui/files/export_targets.h"
#include "earshot/ui/files/file_playback.h"
#include "earshot/ui/files/file_result_view.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/files/files_queue_view.h"

namespace earshot::ui {

static_assert(FilesPanel::kPlaybackTickMs == FilePlayback::kTickMs);

FilesPanel::FilesPanel(QWidget* parent) : FilesPanel(nullptr, parent) {}

FilesPanel::FilesPanel(FilesQueue* queue, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("filesPanel"));
    setAcceptDrops(true);
    m_queue = queue != nullptr ? queue : new FilesQueue(this);

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

    // The watch folder: recordings that appear there are queued once they stop growing.
    m_watch = new QPushButton(tr("&Watch a folder…"), this);
    m_watch->setObjectName(QStringLiteral("watchFolderButton"));
    m_watch->setToolTip(
        tr("Every new recording in the folder is added here once it has stopped growing; "
           "temporary and non-audio files are left alone."));
    connect(m_watch, &QPushButton::clicked, this, &FilesPanel::chooseWatchFolder);
    m_stopWatch = new QPushButton(tr("Stop watching"), this);
    m_stopWatch->setObjectName(QStringLiteral("stopWatchingButton"));
    connect(m_stopWatch, &QPushButton::clicked, this, [this] { watchFolder(QString()); });
    m_watchLabel = new QLabel(this);
    m_watchLabel->setObjectName(QStringLiteral("watchFolderLabel"));
    m_watchLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* watchRow = new QHBoxLayout;
    watchRow->addWidget(m_watch);
    watchRow->addWidget(m_watchLabel, 1);
    watchRow->addWidget(m_stopWatch);
    setWatchFolder(QString());

    m_queueView = new FilesQueueView(m_queue, this);
    connect(m_queueView, &QTableWidget::itemSelectionChanged, this, [this] {
        const int id = m_queueView->selectedJob();
        if (id >= 0 && id != m_result->shownJob()) {
            m_result->showJob(id);
        }
        updateButtons();
    });
    m_result = new FileResultView(m_queue, this);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_queueView);
    splitter->addWidget(m_result);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addLayout(watchRow);
    layout->addWidget(splitter, 1);
    connectQueue();
    updateButtons();
}

FilesPanel::~FilesPanel() = default;

void FilesPanel::setWatchFolder(const QString& folder) {
    m_watchFolder = folder;
    m_watchLabel->setText(folder.isEmpty()
                              ? tr("No watch folder.")
                              : tr("Watching %1: new recordings are added once they stop "
                                   "growing.")
                                    .arg(QDir::toNativeSeparators(folder)));
    m_stopWatch->setVisible(!folder.isEmpty());
}

void FilesPanel::watchFolder(const QString& folder) {
    setWatchFolder(folder);
    Q_EMIT watchFolderChanged(folder);
}

void FilesPanel::chooseWatchFolder() {
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Watch a folder"), m_watchFolder.isEmpty() ? QDir::homePath() : m_watchFolder);
    if (!folder.isEmpty()) watchFolder(folder);
}

void FilesPanel::setQueue(FilesQueue* queue) {
    if (queue == m_queue) {
        return;
    }
    disconnect(m_queue, nullptr, this, nullptr);
    if (m_queue->parent() == this) {
        m_queue->deleteLater();
    }
    m_queue = queue;
    m_queueView->setQueue(queue);
    m_result->setQueue(queue);
    connectQueue();
    updateButtons();
}

void FilesPanel::connectQueue() {
    connect(m_queue, &FilesQueue::jobQueued, this, [this](int id, const QString& /*path*/) {
        if (m_queueView->currentRow() < 0) {
            selectJob(id);  // the first file queued into an empty selection is shown
        }
    });
    connect(m_queue, &FilesQueue::jobsRemoved, this, &FilesPanel::jobsRemovedFromQueue);
    connect(m_queue, &FilesQueue::jobAdded, this, &FilesPanel::updateButtons);
    connect(m_queue, &FilesQueue::jobStateChanged, this, &FilesPanel::updateButtons);
}

void FilesPanel::jobsRemovedFromQueue(const QList<int>& ids) {
    if (ids.contains(m_result->playback()->playedJob())) {
        m_result->playback()->stop();
    }
    m_queueView->removeJobRows(ids);
    const int current = m_queueView->currentRow();
    if (current >= 0 && current < m_queueView->rowCount()) {
        m_queueView->selectRow(current);
        m_result->showJob(m_queueView->jobAt(current));
    } else if (!m_queue->jobIds().isEmpty()) {
        selectJob(m_queue->jobIds().last());
    } else {
        m_result->showNothing();
    }
    updateButtons();
}

void FilesPanel::setPlayer(std::unique_ptr<TranscriptPlayer> player) {
    m_result->playback()->setPlayer(std::move(player));
}

TranscriptPlayer* FilesPanel::player() const { return m_result->playback()->player(); }

QString FilesPanel::audioFileFilter() {
    return tr(
        "Audio and video (*.wav *.mp3 *.flac *.ogg *.opus *.m4a *.aac *.wma *.mp4 *.mkv "
        "*.webm *.mov);;All files (*)");
}

int FilesPanel::selectedJob() const { return m_queueView->selectedJob(); }
QList<int> FilesPanel::selectedJobs() const { return m_queueView->selectedJobs(); }

void FilesPanel::selectJob(int id) {
    if (m_queueView->selectJob(id)) {
        m_result->showJob(id);
    }
}

void FilesPanel::selectSegment(int row) { m_result->selectSegment(row); }

QTableWidget* FilesPanel::queueTable() const { return m_queueView; }
QTableWidget* FilesPanel::segmentTable() const { return m_result->segmentTable(); }
QLabel* FilesPanel::segmentTimeLabel() const { return m_result->segmentTimeLabel(); }
SegmentTokensView* FilesPanel::segmentTokens() const { return m_result->segmentTokens(); }
QProgressBar* FilesPanel::progressBar(int id) const { return m_queueView->progressBar(id); }
QLabel* FilesPanel::resultTitle() const { return m_result->title(); }
TranscriptWordsView* FilesPanel::transcriptWords() const { return m_result->words(); }
QPushButton* FilesPanel::playButton() const { return m_result->playback()->playButton(); }
QLabel* FilesPanel::playbackLabel() const { return m_result->playback()->playbackLabel(); }
void FilesPanel::togglePlayback() { m_result->playback()->togglePlayback(); }
void FilesPanel::playFrom(double seconds) { m_result->playback()->playFrom(seconds); }
void FilesPanel::updatePlayback() { m_result->playback()->updatePlayback(); }

void FilesPanel::updateButtons() {
    const int id = selectedJob();
    const FileJobState state = id < 0 ? FileJobState::failed : m_queue->jobState(id);
    m_cancel->setEnabled(id >= 0 &&
                         (state == FileJobState::queued || state == FileJobState::running));
    m_export->setEnabled(id >= 0 &&
                         (state == FileJobState::done || state == FileJobState::cancelled));
    m_remove->setEnabled(!selectedJobs().isEmpty());
    m_clearFinished->setEnabled(!m_queue->finishedJobs().isEmpty());
    m_exportAll->setEnabled(!m_queue->exportableJobs().isEmpty());
}

void FilesPanel::chooseFiles() {
    const QStringList paths =
        QFileDialog::getOpenFileNames(this, tr("Transcribe files"), QString(), audioFileFilter());
    if (!paths.isEmpty()) {
        m_queue->addFiles(paths);
    }
}

void FilesPanel::cancelSelected() {
    const int id = selectedJob();
    const FileJobState state = m_queue->jobState(id);
    if (id >= 0 && (state == FileJobState::queued || state == FileJobState::running)) {
        Q_EMIT cancelRequested(id);
    }
}

void FilesPanel::removeSelected() { m_queue->removeJobs(selectedJobs()); }

void FilesPanel::clearFinished() {
    const QList<int> finished = m_queue->finishedJobs();
    int results = 0;
    int failures = 0;
    for (int id : finished) {
        (m_queue->jobState(id) == FileJobState::failed ? failures : results) += 1;
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
            m_queue->removeJobs(
                finished);  // rows finished since still go; ones already removed are skipped
        }
    });
    confirm->open();
}

void FilesPanel::exportAll() {
    const QList<int> ids = m_queue->exportableJobs();
    if (ids.isEmpty()) {
        return;
    }
    QList<QPair<int, QString>> inputs;
    for (int id : ids) {
        inputs.append({id, m_queue->jobPath(id)});
    }
    ExportAllDialog dialog(static_cast<int>(ids.size()),
                           QFileInfo(inputs.first().second).absolutePath(), this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    const QString folder = QDir::cleanPath(dialog.folder());
    Q_EMIT exportAllRequested(exportTargets(inputs, dialog.formats(), folder), folder);
}

void FilesPanel::exportSelected(const QString& format) {
    const int id = selectedJob();
    if (id < 0) {
        return;
    }
    const QFileInfo input(m_queue->jobPath(id));
    const QString suggested = input.absolutePath() + QLatin1Char('/') + input.completeBaseName() +
                              QLatin1Char('.') + format;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1").arg(format.toUpper()), suggested,
        tr("%1 files (*.%2);;All files (*)").arg(format.toUpper(), format));
    if (!path.isEmpty()) {
        Q_EMIT exportRequested(id, format, path);
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
        m_queue->addFiles(paths);
        event->acceptProposedAction();
    }
}

}  // namespace earshot::ui
