// Plain data of file transcription as the Files page shows it: a job's state and the timed
// segments of its result.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

namespace earshot::ui {

enum class FileJobState { queued, running, done, failed, cancelled };

struct SegmentRow {
    double startS = 0.0;  // from the start of the file
    double endS = 0.0;
    QString text;  // stripped
};

// "01:02.345" under an hour, "1:02:03.456" from an hour on.
QString formatSegmentTime(double seconds);

}  // namespace earshot::ui

Q_DECLARE_METATYPE(earshot::ui::SegmentRow)
