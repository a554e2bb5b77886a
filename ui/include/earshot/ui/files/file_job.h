// Plain data of file transcription as the Files page shows it: a job's state, the timed segments
// (and words) of its result, one queued file's record and the files "Export all" writes.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

namespace earshot::ui {

enum class FileJobState { queued, running, done, failed, cancelled };

// One text token of a segment as the decoder sampled it.
struct SegmentToken {
    QString text;               // with its leading space, as Whisper wrote it
    double probability = -1.0;  // how sure the decoder was (0..1); -1: not measured
};

// One word of a segment with its time, from cross-attention alignment.
struct TimedWord {
    QString text;         // stripped of its leading space, punctuation kept ("Hello,")
    double startS = 0.0;  // from the start of the file; the word is [startS, endS)
    double endS = 0.0;
    double probability = -1.0;  // mean P of its tokens (0..1); -1: not measured
};

struct SegmentRow {
    double startS = 0.0;  // from the start of the file
    double endS = 0.0;
    QString text;                // stripped
    QList<SegmentToken> tokens;  // its text tokens in order (timestamps left out); may be empty
    QList<TimedWord> words{};    // its words with their times; empty: not timed
};

// One file of the Files queue as FilesQueue keeps it.
struct FileJob {
    int id = -1;
    QString path;
    QString name;  // the file name, with parent folders where another queued file shares it
    FileJobState state = FileJobState::queued;
    QList<SegmentRow> segments;  // so far while running; what it kept when cancelled
    QString language;
    QString message;        // why it failed, without the path the row already names
    double progress = 0.0;  // 0..1
    bool paused = false;    // running, but waiting while dictation has the model
};

// One file that "Export all" writes: job `id`'s transcript as `format` ("txt", "srt", "vtt",
// "json") to `path`.
struct ExportTarget {
    int id = -1;
    QString format;
    QString path;
};

// "01:02.345" under an hour, "1:02:03.456" from an hour on.
QString formatSegmentTime(double seconds);

// "1 segment", "3 segments".
QString segmentCount(int count);

}  // namespace earshot::ui

Q_DECLARE_METATYPE(earshot::ui::SegmentRow)
Q_DECLARE_METATYPE(earshot::ui::ExportTarget)
