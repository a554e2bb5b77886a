// FilesHistory: the Files page's finished results kept on disk, one JSON file each in a folder of
// the app's data, so that they are listed (and can be exported) again after a restart, until the
// user removes them from the list.
#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <vector>

#include "earshot/engine/decoding/transcript.h"
#include "earshot/ui/files/file_job.h"

namespace earshot::app {

struct FilesHistoryEntry {
    QString source;  // the transcribed file
    bool cancelled = false;
    decoding::Transcript transcript;
    // The transcript's rows as the Files page lists them (segment_rows), with the tokens and
    // probabilities saved beside the transcript when it was saved with them.
    QList<ui::SegmentRow> rows;
    QString file;  // its file's name in the folder (for FilesHistory::attach)
};

class FilesHistory {
public:
    // The newest results kept; saving one more removes the oldest.
    static constexpr int kMaxEntries = 100;

    explicit FilesHistory(QString folder);
    const QString& folder() const { return m_folder; }

    // Adds a result (a cancelled one holds what was done before the cancel); the reason when it
    // cannot be written, empty on success. A `job` >= 0 (the Files page's job id) can remove it
    // again. `rows` (segment_rows of the transcript, as the page shows them) keep their tokens'
    // texts and probabilities beside the transcript, for the page after a restart.
    QString save(const QString& source, const decoding::Transcript& transcript, bool cancelled,
                 int job = -1, const QList<ui::SegmentRow>& rows = {});
    // Every readable result, oldest first; unreadable files are skipped.
    std::vector<FilesHistoryEntry> load() const;
    // The loaded result in `file` (FilesHistoryEntry::file) is job `job`'s, for remove().
    void attach(int job, const QString& file) { m_jobFiles.insert(job, file); }
    // Deletes job `job`'s kept result (saved or attached in this run), so that it is not loaded
    // again; the reason when it cannot be deleted, empty on success or when the job has none.
    QString remove(int job);

private:
    QString m_folder;
    QHash<int, QString> m_jobFiles;  // job id -> its result's file name in the folder
};

}  // namespace earshot::app
