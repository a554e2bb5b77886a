// The texts of file_job.h: segment times and segment counts as the Files page writes them.
#include "earshot/ui/files/file_job.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace earshot::ui {

QString formatSegmentTime(double seconds) {
    const qint64 totalMs = std::llround(std::max(0.0, seconds) * 1000.0);
    const qint64 hours = totalMs / 3'600'000;
    const qint64 minutes = totalMs / 60'000 % 60;
    const qint64 secs = totalMs / 1000 % 60;
    const qint64 ms = totalMs % 1000;
    const QString rest = QStringLiteral("%1:%2.%3")
                             .arg(minutes, 2, 10, QLatin1Char('0'))
                             .arg(secs, 2, 10, QLatin1Char('0'))
                             .arg(ms, 3, 10, QLatin1Char('0'));
    return hours > 0 ? QStringLiteral("%1:%2").arg(hours).arg(rest) : rest;
}

QString segmentCount(int count) {
    // Without a translation loaded, tr's %n only puts in the number: English's singular is here.
    return count == 1 ? QCoreApplication::translate("earshot::ui::FilesPanel", "1 segment")
                      : QCoreApplication::translate("earshot::ui::FilesPanel", "%n segments",
                                                    nullptr, count);
}

}  // namespace earshot::ui
