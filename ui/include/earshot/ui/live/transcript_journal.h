// TranscriptJournal: the session transcript on disk, rewritten atomically on every change so a
// crash loses nothing, and read back on the next start; and the text the user cleared, kept
// beside it until the session after next.
#pragma once

#include <QString>

namespace earshot::ui {

class TranscriptJournal {
public:
    explicit TranscriptJournal(QString filePath);

    const QString& path() const { return m_path; }
    // The saved text; empty when there is no journal yet or it cannot be read.
    QString load() const;
    // Writes `text` (UTF-8) through a temporary file renamed over the journal, creating the
    // folder; false with lastError() set when that fails.
    bool save(const QString& text);
    const QString& lastError() const { return m_lastError; }

    // Text cleared in this session: appended, each under a line with the time, to
    // <journal name>.cleared.txt beside the journal; false with lastError() set when that fails.
    bool keepCleared(const QString& text);
    // At the start of a session: what the last session cleared becomes
    // <journal name>.cleared-previous.txt, replacing (or, when it cleared nothing, removing) the
    // one before. Cleared text is so on disk for the rest of its session and all of the next.
    void startSession();
    QString clearedPath() const;
    QString previousClearedPath() const;

private:
    QString m_path;
    QString m_lastError;
};

}  // namespace earshot::ui
