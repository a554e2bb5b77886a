// FilesQueue: the jobs by id and their order; names made distinct whenever the list changes.
#include "earshot/ui/files/files_queue.h"

#include <QFileInfo>
#include <algorithm>

#include "earshot/ui/files/distinct_file_names.h"

namespace earshot::ui {

FilesQueue::FilesQueue(QObject* parent) : QObject(parent) {}

int FilesQueue::appendJob(const QString& path) {
    FileJob job;
    job.id = m_nextId++;
    job.path = path;
    job.name = QFileInfo(path).fileName();
    m_jobs.insert(job.id, job);
    m_order.append(job.id);
    Q_EMIT jobAdded(job.id);
    refreshNames();
    return job.id;
}

void FilesQueue::refreshNames() {
    QStringList paths;
    for (int id : m_order) {
        paths.append(m_jobs[id].path);
    }
    const QStringList names = distinctFileNames(paths);
    for (int row = 0; row < m_order.size(); ++row) {
        FileJob& job = m_jobs[m_order[row]];
        if (job.name != names[row]) {
            job.name = names[row];
            Q_EMIT jobRenamed(job.id);
        }
    }
}

QList<int> FilesQueue::addFiles(const QStringList& paths) {
    QList<int> ids;
    for (const QString& path : paths) {
        const int id = appendJob(path);
        ids.append(id);
        Q_EMIT jobQueued(id, path);
    }
    return ids;
}

int FilesQueue::addFinishedJob(const QString& path, const QList<SegmentRow>& segments,
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

void FilesQueue::setState(int id, FileJobState state) {
    m_jobs[id].state = state;
    Q_EMIT jobStateChanged(id);
}

void FilesQueue::setJobRunning(int id) {
    if (!m_jobs.contains(id)) {
        return;
    }
    m_jobs[id].segments.clear();
    m_jobs[id].paused = false;
    setState(id, FileJobState::running);
}

void FilesQueue::setJobProgress(int id, double fraction) {
    if (!m_jobs.contains(id)) {
        return;
    }
    m_jobs[id].progress = std::clamp(fraction, 0.0, 1.0);
    Q_EMIT jobProgressChanged(id);
}

void FilesQueue::appendJobSegments(int id, const QList<SegmentRow>& segments) {
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end() || it->state != FileJobState::running || segments.isEmpty()) {
        return;
    }
    it->segments.append(segments);
    Q_EMIT segmentsAppended(id, segments);
}

void FilesQueue::setJobPaused(int id, bool paused) {
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end() || it->state != FileJobState::running) {
        return;
    }
    it->paused = paused;
    Q_EMIT jobPausedChanged(id);
}

void FilesQueue::setJobFinished(int id, const QList<SegmentRow>& segments,
                                const QString& language) {
    if (!m_jobs.contains(id)) {
        return;
    }
    m_jobs[id].segments = segments;
    m_jobs[id].language = language;
    setJobProgress(id, 1.0);
    setState(id, FileJobState::done);
}

void FilesQueue::setJobFailed(int id, const QString& message) {
    if (!m_jobs.contains(id)) {
        return;
    }
    const QString prefix = m_jobs[id].path + QStringLiteral(": ");
    m_jobs[id].message = message.startsWith(prefix) ? message.mid(prefix.size()) : message;
    setState(id, FileJobState::failed);
}

void FilesQueue::setJobCancelled(int id, const QList<SegmentRow>& partial) {
    if (!m_jobs.contains(id)) {
        return;
    }
    m_jobs[id].segments = partial;
    setState(id, FileJobState::cancelled);
}

void FilesQueue::removeJobs(const QList<int>& ids) {
    QList<int> removed;
    for (int id : ids) {
        if (m_jobs.remove(id) > 0) {
            m_order.removeOne(id);
            removed.append(id);
        }
    }
    if (removed.isEmpty()) {
        return;
    }
    refreshNames();
    Q_EMIT jobsRemoved(removed);
}

int FilesQueue::unfinishedJobs() const {
    return static_cast<int>(std::count_if(m_jobs.begin(), m_jobs.end(), [](const FileJob& job) {
        return job.state == FileJobState::queued || job.state == FileJobState::running;
    }));
}

QList<int> FilesQueue::finishedJobs() const {
    QList<int> ids;
    for (int id : m_order) {
        const FileJobState state = m_jobs[id].state;
        if (state == FileJobState::done || state == FileJobState::failed ||
            state == FileJobState::cancelled) {
            ids.append(id);
        }
    }
    return ids;
}

bool FilesQueue::isExportable(const FileJob& job) {
    return job.state == FileJobState::done ||
           (job.state == FileJobState::cancelled && !job.segments.isEmpty());
}

QList<int> FilesQueue::exportableJobs() const {
    QList<int> ids;
    for (int id : m_order) {
        if (isExportable(m_jobs[id])) {
            ids.append(id);
        }
    }
    return ids;
}

}  // namespace earshot::ui
