// TranscriptJournal: the session transcript on disk, rewritten atomically on every change so a
// crash loses nothing, and read back on the next start.
#pragma once

#include <QString>

namespace earshot::ui {

class TranscriptJournal {
public:
    explicit TranscriptJournal(QString filePath);

    // <AppDataLocation>/session-transcript.txt (e.g. ~/.local/share/Earshot/...).
    static QString defaultPath();

    const QString& path() const { return m_path; }
    // The saved text; empty when there is no journal yet or it cannot be read.
    QString load() const;
    // Writes `text` (UTF-8) through a temporary file renamed over the journal, creating the
    // folder; false with lastError() set when that fails.
    bool save(const QString& text);
    const QString& lastError() const { return m_lastError; }

private:
    QString m_path;
    QString m_lastError;
};

}  // namespace earshot::ui
