// FilesWatch: the Files page's watch folder. A timer looks at the folder (core/files/
// watch_folder.h, the same rules as `earshot watch`) and reports the recordings that have stopped
// growing, and once each, the files it leaves alone and why.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <memory>

#include "core/files/watch_folder.h"

namespace earshot::app {

class FilesWatch : public QObject {
    Q_OBJECT

public:
    static constexpr int kPollMs = 500;
    static constexpr int kSettleMs = 2000;  // as `earshot watch --settle-s 2`

    explicit FilesWatch(QObject* parent = nullptr);

    // Watches `folder` from now (empty: stops). Files already there are reported too, once
    // settled; whoever queues them skips what it has.
    void setFolder(const QString& folder);
    QString folder() const { return m_folder; }
    void setSettleMs(int settle_ms);  // tests
    // One look now (the timer's work).
    void poll();

Q_SIGNALS:
    void recordingsReady(const QStringList& paths);
    void ignored(const QString& name, const QString& reason);
    void folderUnreadable(const QString& message);

private:
    QString m_folder;
    int m_settleMs = kSettleMs;
    QString m_lastError;
    std::unique_ptr<WatchFolder> m_watch;
    QTimer m_timer;
};

}  // namespace earshot::app
