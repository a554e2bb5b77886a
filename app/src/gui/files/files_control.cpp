// GuiController's files feature: the Files queue it owns, fed by FilesWorker's reports, the
// page's cancel and export requests, and the results kept over restarts (FilesHistory).
#include <QSettings>
#include <QStatusBar>
#include <memory>
#include <utility>

#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/main_window.h"
#include "gui/files/files_history.h"
#include "gui/files/files_player.h"
#include "gui/files/files_watch.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/status_message.h"

namespace earshot::app {

void GuiController::connectFiles() {
    ui::FilesPanel* panel = m_window.filesPanel();
    ui::FilesQueue* queue = m_filesQueue;
    panel->setPlayer(std::make_unique<FilesPlayer>());  // Play and word clicks: the output device
    connect(queue, &ui::FilesQueue::jobQueued, m_files, &FilesWorker::enqueue);
    connect(panel, &ui::FilesPanel::cancelRequested, m_files, &FilesWorker::cancel);
    connect(panel, &ui::FilesPanel::exportRequested, this,
            [this](int id, const QString& format, const QString& path) {
                const QString error = m_files->exportTranscript(id, format, path);
                m_window.statusBar()->showMessage(
                    error.isEmpty() ? tr("Wrote %1").arg(path) : tr("Export failed: %1").arg(error),
                    kStatusMessageMs);
            });
    connect(panel, &ui::FilesPanel::exportAllRequested, this,
            [this](const QList<ui::ExportTarget>& targets, const QString& folder) {
                const FilesExportSummary summary = m_files->exportAll(targets, folder);
                // Failures stay until the next message: the user reads which and why.
                m_window.statusBar()->showMessage(
                    summary.message(folder), summary.failures.isEmpty() ? kStatusMessageMs : 0);
            });
    connect(queue, &ui::FilesQueue::jobsRemoved, this, [this](const QList<int>& ids) {
        for (int id : ids) {
            m_files->remove(id);  // a running one is cancelled and nothing of it is kept
            const QString error = m_history ? m_history->remove(id) : QString();
            if (!error.isEmpty()) {
                m_window.statusBar()->showMessage(tr("Could not forget the result: %1").arg(error),
                                                  kStatusMessageMs);
            }
        }
    });
    connect(m_files, &FilesWorker::jobStarted, queue, &ui::FilesQueue::setJobRunning);
    connect(m_files, &FilesWorker::jobProgress, queue, &ui::FilesQueue::setJobProgress);
    // A file paused for dictation says so in its row, and goes back to "Transcribing" after.
    connect(m_files, &FilesWorker::paused, queue, [this, queue] {
        // Unless dictation could not start and the files went on already.
        if (m_files->isPaused()) queue->setJobPaused(m_files->runningJob(), true);
    });
    connect(m_files, &FilesWorker::resumed, queue,
            [this, queue] { queue->setJobPaused(m_files->runningJob(), false); });
    connect(m_files, &FilesWorker::jobSegments, queue, &ui::FilesQueue::appendJobSegments);
    connect(m_files, &FilesWorker::jobFinished, queue, &ui::FilesQueue::setJobFinished);
    connect(m_files, &FilesWorker::jobFailed, queue, &ui::FilesQueue::setJobFailed);
    connect(m_files, &FilesWorker::jobCancelled, queue, &ui::FilesQueue::setJobCancelled);
    connect(m_files, &FilesWorker::busyChanged, this, &GuiController::updateStartAllowed);
    connect(m_files, &FilesWorker::jobFinished, this, [this](int id) { keepResult(id, false); });
    connect(m_files, &FilesWorker::jobCancelled, this,
            [this](int id, const QList<ui::SegmentRow>& partial) {
                if (!partial.isEmpty()) {
                    keepResult(id, true);
                }
            });
}

void GuiController::connectFilesWatch() {
    static const QString kWatchKey = QStringLiteral("files/watchFolder");
    ui::FilesPanel* panel = m_window.filesPanel();
    m_watch = new FilesWatch(this);
    connect(panel, &ui::FilesPanel::watchFolderChanged, this, [this](const QString& folder) {
        m_store->setValue(kWatchKey, folder);
        m_watch->setFolder(folder);
    });
    // A settled recording is queued unless the queue has it already, waiting, running or done
    // (so a restart, whose history restores the done ones, does not do them again); one that
    // failed or was cancelled is queued again when it has changed.
    connect(m_watch, &FilesWatch::recordingsReady, this, [this](const QStringList& paths) {
        QStringList fresh;
        for (const QString& path : paths) {
            bool have = false;
            for (int id : m_filesQueue->jobIds()) {
                const ui::FileJobState state = m_filesQueue->jobState(id);
                have = have ||
                       (m_filesQueue->jobPath(id) == path && state != ui::FileJobState::failed &&
                        state != ui::FileJobState::cancelled);
            }
            if (!have) fresh << path;
        }
        if (!fresh.isEmpty()) m_filesQueue->addFiles(fresh);
    });
    connect(m_watch, &FilesWatch::ignored, this,
            [this](const QString& name, const QString& reason) {
                m_window.statusBar()->showMessage(
                    tr("Watch folder: left %1 alone: %2").arg(name, reason), kStatusMessageMs);
            });
    connect(m_watch, &FilesWatch::folderUnreadable, this, [this](const QString& message) {
        m_window.statusBar()->showMessage(tr("Watch folder: cannot read %1").arg(message), 0);
    });
    const QString folder = m_store->value(kWatchKey).toString();
    panel->setWatchFolder(folder);
    m_watch->setFolder(folder);
}

void GuiController::restoreFilesHistory() {
    for (FilesHistoryEntry& entry : m_history->load()) {
        const int id = m_filesQueue->addFinishedJob(
            entry.source, entry.rows, QString::fromStdString(entry.transcript.language),
            entry.cancelled ? ui::FileJobState::cancelled : ui::FileJobState::done);
        m_files->addResult(id, std::move(entry.transcript));
        m_history->attach(id, entry.file);
    }
}

void GuiController::keepResult(int id, bool cancelled) {
    const decoding::Transcript* transcript = m_files->transcript(id);
    if (!m_history || transcript == nullptr) {
        return;
    }
    const QString error = m_history->save(m_filesQueue->jobPath(id), *transcript, cancelled, id,
                                          m_filesQueue->jobSegments(id));
    if (!error.isEmpty()) {
        m_window.statusBar()->showMessage(tr("Could not keep the result: %1").arg(error),
                                          kStatusMessageMs);
    }
}

}  // namespace earshot::app
