// TranscriptJournal: QSaveFile writes a temporary file, fsyncs it and renames it over the journal,
// so the journal on disk is always a whole transcript, the previous one or the new one. Cleared
// text is appended to a file beside it, which the next session's start moves aside once.
#include "earshot/ui/live/transcript_journal.h"

#include <unistd.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QSaveFile>

namespace earshot::ui {

TranscriptJournal::TranscriptJournal(QString filePath) : m_path(std::move(filePath)) {}

QString TranscriptJournal::load() const {
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QString::fromUtf8(file.readAll());
}

bool TranscriptJournal::save(const QString& text) {
    const QFileInfo info(m_path);
    if (!QDir().mkpath(info.absolutePath())) {
        m_lastError = QObject::tr("cannot create %1").arg(info.absolutePath());
        return false;
    }
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly)) {
        m_lastError = QObject::tr("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    file.write(text.toUtf8());
    if (!file.commit()) {
        m_lastError = QObject::tr("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    m_lastError.clear();
    return true;
}

namespace {
// <dir>/<name>.<tag>.<suffix>: "session-transcript.txt" -> "session-transcript.cleared.txt".
QString besideJournal(const QString& journal, const QString& tag) {
    const QFileInfo info(journal);
    const QString suffix = info.suffix();
    return info.path() + QLatin1Char('/') + info.completeBaseName() + QLatin1Char('.') + tag +
           (suffix.isEmpty() ? QString() : QLatin1Char('.') + suffix);
}
}  // namespace

QString TranscriptJournal::clearedPath() const {
    return besideJournal(m_path, QStringLiteral("cleared"));
}

QString TranscriptJournal::previousClearedPath() const {
    return besideJournal(m_path, QStringLiteral("cleared-previous"));
}

bool TranscriptJournal::keepCleared(const QString& text) {
    const QString path = clearedPath();
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        m_lastError = QObject::tr("cannot create %1").arg(QFileInfo(path).absolutePath());
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append)) {
        m_lastError = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    const QString entry = QStringLiteral("--- cleared %1 ---\n%2\n")
                              .arg(QDateTime::currentDateTime().toString(Qt::ISODate), text);
    const QByteArray bytes = entry.toUtf8();
    // flush() hands the bytes to the kernel; fsync puts them on disk, so that a crash or a pulled
    // cable right after Clear loses nothing (QSaveFile's commit in save() does the same).
    if (file.write(bytes) != bytes.size() || !file.flush() || ::fsync(file.handle()) != 0) {
        m_lastError = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    m_lastError.clear();
    return true;
}

void TranscriptJournal::startSession() {
    const QString previous = previousClearedPath();
    QFile::remove(previous);
    const QString cleared = clearedPath();
    if (QFile::exists(cleared)) {
        QFile::rename(cleared, previous);
    }
}

}  // namespace earshot::ui
