// FilesHistory: the Files page's finished results kept on disk, one JSON file each in a folder of
// the app's data, so that they are listed (and can be exported) again after a restart.
#pragma once

#include <QString>
#include <vector>

#include "earshot/engine/decoding/transcript.h"

namespace earshot::app {

struct FilesHistoryEntry {
    QString source;  // the transcribed file
    bool cancelled = false;
    decoding::Transcript transcript;
};

class FilesHistory {
public:
    // The newest results kept; saving one more removes the oldest.
    static constexpr int kMaxEntries = 100;

    explicit FilesHistory(QString folder);
    const QString& folder() const { return m_folder; }

    // Adds a result (a cancelled one holds what was done before the cancel); the reason when it
    // cannot be written, empty on success.
    QString save(const QString& source, const decoding::Transcript& transcript, bool cancelled);
    // Every readable result, oldest first; unreadable files are skipped.
    std::vector<FilesHistoryEntry> load() const;

private:
    QString m_folder;
};

}  // namespace earshot::app
