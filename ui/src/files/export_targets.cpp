// exportTargets: one stem per input (base name, else file name, else a numbered file name), then
// one path per stem and format.
#include "earshot/ui/files/export_targets.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QSet>

namespace earshot::ui {

QList<ExportTarget> exportTargets(const QList<QPair<int, QString>>& inputs,
                                  const QStringList& formats, const QString& folder) {
    QHash<QString, int> baseUses;
    for (const auto& input : inputs) {
        ++baseUses[QFileInfo(input.second).completeBaseName().toLower()];
    }
    QSet<QString> used;
    QList<ExportTarget> targets;
    const QDir dir(folder);
    for (const auto& [id, path] : inputs) {
        const QFileInfo info(path);
        const QString base = info.completeBaseName();
        const QString wanted =
            baseUses.value(base.toLower()) > 1 || base.isEmpty() ? info.fileName() : base;
        QString stem = wanted;
        for (int n = 2; used.contains(stem.toLower()); ++n) {
            stem = QStringLiteral("%1 (%2)").arg(wanted).arg(n);
        }
        used.insert(stem.toLower());
        for (const QString& format : formats) {
            targets.append({id, format, dir.filePath(stem + QLatin1Char('.') + format)});
        }
    }
    return targets;
}

}  // namespace earshot::ui
