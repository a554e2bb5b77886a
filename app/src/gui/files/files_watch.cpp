// FilesWatch: the timer over WatchFolder, its reports as signals.
#include "gui/files/files_watch.h"

#include <chrono>

namespace earshot::app {

FilesWatch::FilesWatch(QObject* parent) : QObject(parent) {
    m_timer.setInterval(kPollMs);
    connect(&m_timer, &QTimer::timeout, this, &FilesWatch::poll);
}

void FilesWatch::setFolder(const QString& folder) {
    m_folder = folder;
    m_lastError.clear();
    if (folder.isEmpty()) {
        m_timer.stop();
        m_watch.reset();
        return;
    }
    m_watch =
        std::make_unique<WatchFolder>(folder.toStdString(), std::chrono::milliseconds(m_settleMs));
    m_timer.start();
    poll();
}

void FilesWatch::setSettleMs(int settle_ms) {
    m_settleMs = settle_ms;
    if (!m_folder.isEmpty()) setFolder(m_folder);
}

void FilesWatch::poll() {
    if (!m_watch) return;
    QStringList ready;
    for (const WatchEvent& event : m_watch->scan(WatchFolder::Clock::now())) {
        const QString path = QString::fromStdString(event.path.string());
        if (event.verdict == WatchVerdict::ready) {
            ready << path;
        } else {
            Q_EMIT ignored(QString::fromStdString(event.path.filename().string()),
                           QString::fromStdString(event.reason));
        }
    }
    const QString error = QString::fromStdString(m_watch->error_message());
    if (error != m_lastError) {
        m_lastError = error;
        if (!error.isEmpty()) Q_EMIT folderUnreadable(error);
    }
    if (!ready.isEmpty()) Q_EMIT recordingsReady(ready);
}

}  // namespace earshot::app
