// TranscriptJournal: QSaveFile writes a temporary file and renames it over the journal, so the
// journal on disk is always a whole transcript, the previous one or the new one.
#include "earshot/ui/live/transcript_journal.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QSaveFile>
#include <QStandardPaths>

namespace earshot::ui {

TranscriptJournal::TranscriptJournal(QString filePath) : m_path(std::move(filePath)) {}

QString TranscriptJournal::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/session-transcript.txt");
}

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

}  // namespace earshot::ui
