// FilesQueueView: rows added, updated and removed as the queue's signals say; each row's first
// item holds its job id.
#include "earshot/ui/files/files_queue_view.h"

#include <QHeaderView>
#include <QProgressBar>
#include <QSignalBlocker>
#include <cmath>

#include "earshot/ui/files/files_queue.h"

namespace earshot::ui {

namespace {

enum QueueColumn { kFileColumn = 0, kProgressColumn, kStatusColumn, kQueueColumns };
constexpr int kProgressSteps = 1000;  // progress bars count per mille
constexpr int kJobIdRole = Qt::UserRole;

QTableWidgetItem* readOnlyItem(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    return item;
}

}  // namespace

FilesQueueView::FilesQueueView(FilesQueue* queue, QWidget* parent)
    : QTableWidget(0, kQueueColumns, parent) {
    setObjectName(QStringLiteral("fileQueue"));
    setHorizontalHeaderLabels({tr("File"), tr("Progress"), tr("Status")});
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(kFileColumn, QHeaderView::Stretch);
    horizontalHeader()->setSectionResizeMode(kProgressColumn, QHeaderView::Fixed);
    horizontalHeader()->resizeSection(kProgressColumn, 200);
    horizontalHeader()->setSectionResizeMode(kStatusColumn, QHeaderView::Stretch);
    // At least five rows show: the result below must not squeeze a queue of files to two.
    constexpr int kQueueRowsShown = 5;
    setMinimumHeight(horizontalHeader()->sizeHint().height() +
                     kQueueRowsShown * verticalHeader()->defaultSectionSize() + 2 * frameWidth());
    setQueue(queue);
}

void FilesQueueView::setQueue(FilesQueue* queue) {
    if (m_queue != nullptr) {
        disconnect(m_queue, nullptr, this, nullptr);
    }
    m_queue = queue;
    {
        const QSignalBlocker blocker(this);
        setRowCount(0);
    }
    for (int id : m_queue->jobIds()) {
        addRow(id);
    }
    connect(m_queue, &FilesQueue::jobAdded, this, &FilesQueueView::addRow);
    connect(m_queue, &FilesQueue::jobRenamed, this, &FilesQueueView::showName);
    connect(m_queue, &FilesQueue::jobStateChanged, this, &FilesQueueView::showStatus);
    connect(m_queue, &FilesQueue::jobPausedChanged, this, &FilesQueueView::showStatus);
    connect(m_queue, &FilesQueue::segmentsAppended, this,
            [this](int id, const QList<SegmentRow>& /*segments*/) { showStatus(id); });
    connect(m_queue, &FilesQueue::jobProgressChanged, this, &FilesQueueView::showProgress);
}

void FilesQueueView::addRow(int id) {
    const FileJob job = m_queue->job(id);
    const int row = rowCount();
    insertRow(row);
    auto* name = readOnlyItem(job.name);
    name->setToolTip(job.path);
    name->setData(kJobIdRole, id);
    setItem(row, kFileColumn, name);
    auto* bar = new QProgressBar(this);
    bar->setRange(0, kProgressSteps);
    bar->setFormat(QStringLiteral("%p%"));
    setCellWidget(row, kProgressColumn, bar);
    setItem(row, kStatusColumn, readOnlyItem(QString()));
    showProgress(id);
    showStatus(id);
}

int FilesQueueView::jobAt(int row) const {
    const QTableWidgetItem* name = row >= 0 && row < rowCount() ? item(row, kFileColumn) : nullptr;
    return name != nullptr ? name->data(kJobIdRole).toInt() : -1;
}

int FilesQueueView::rowOf(int id) const {
    for (int row = 0; row < rowCount(); ++row) {
        if (jobAt(row) == id) {
            return row;
        }
    }
    return -1;
}

QProgressBar* FilesQueueView::progressBar(int id) const {
    const int row = rowOf(id);
    return row < 0 ? nullptr : qobject_cast<QProgressBar*>(cellWidget(row, kProgressColumn));
}

void FilesQueueView::showName(int id) {
    const int row = rowOf(id);
    if (row >= 0) {
        item(row, kFileColumn)->setText(m_queue->job(id).name);
    }
}

void FilesQueueView::showProgress(int id) {
    if (QProgressBar* bar = progressBar(id)) {
        bar->setValue(static_cast<int>(std::lround(m_queue->job(id).progress * kProgressSteps)));
    }
}

void FilesQueueView::showStatus(int id) {
    const int row = rowOf(id);
    if (row < 0) {
        return;
    }
    const QString status = statusText(m_queue->job(id));
    item(row, kStatusColumn)->setText(status);
    item(row, kStatusColumn)->setToolTip(status);
}

QString FilesQueueView::statusText(const FileJob& job) {
    const QString count = segmentCount(static_cast<int>(job.segments.size()));
    switch (job.state) {
        case FileJobState::queued:
            return tr("Queued");
        case FileJobState::running:
            return (job.paused ? tr("Paused while you dictate") : tr("Transcribing")) +
                   (job.segments.isEmpty() ? QString() : tr(": %1 so far").arg(count));
        case FileJobState::done:
            return tr("Done: %1").arg(count) +
                   (job.language.isEmpty() ? QString() : tr(", language %1").arg(job.language));
        case FileJobState::failed:
            return tr("Failed: %1").arg(job.message);
        case FileJobState::cancelled:
            return job.segments.isEmpty() ? tr("Cancelled") : tr("Cancelled after %1").arg(count);
    }
    return {};
}

int FilesQueueView::selectedJob() const { return jobAt(currentRow()); }

QList<int> FilesQueueView::selectedJobs() const {
    QList<int> ids;
    for (int row = 0; row < rowCount(); ++row) {
        if (selectionModel()->isRowSelected(row, QModelIndex())) {
            ids.append(jobAt(row));
        }
    }
    return ids;
}

bool FilesQueueView::selectJob(int id) {
    const int row = rowOf(id);
    if (row >= 0) {
        selectRow(row);
    }
    return row >= 0;
}

void FilesQueueView::removeJobRows(const QList<int>& ids) {
    const QSignalBlocker blocker(this);
    for (int id : ids) {
        const int row = rowOf(id);
        if (row >= 0) {
            removeRow(row);
        }
    }
}

}  // namespace earshot::ui
