// distinctFileNames: grows each shared name by one parent folder at a time until it is unique.
#include "earshot/ui/files/distinct_file_names.h"

#include <QDir>
#include <QHash>
#include <algorithm>

namespace earshot::ui {
namespace {

// The last `count` components of `parts` joined with '/'; all of them when count exceeds it.
QString lastComponents(const QStringList& parts, qsizetype count) {
    const qsizetype first = std::max<qsizetype>(0, parts.size() - count);
    return parts.mid(first).join(QLatin1Char('/'));
}

}  // namespace

QStringList distinctFileNames(const QStringList& paths) {
    QStringList cleaned;       // [P]
    QList<QStringList> parts;  // [P] each path's components, empty ones dropped
    for (const QString& path : paths) {
        cleaned.append(QDir::cleanPath(QDir::fromNativeSeparators(path)));
        parts.append(cleaned.last().split(QLatin1Char('/'), Qt::SkipEmptyParts));
    }
    QList<qsizetype> depth(paths.size(), 1);    // [P] trailing components shown
    QList<bool> collided(paths.size(), false);  // [P] its name was shared at some depth
    // Every name shared by different paths takes one more folder, until none is shared: each
    // round deepens at least one name, so this ends after at most the deepest path's depth.
    for (bool deepened = true; deepened;) {
        deepened = false;
        QHash<QString, QString> firstPathOf;  // name -> the first path that has it
        QHash<QString, bool> shared;          // name -> two different paths have it
        for (qsizetype i = 0; i < paths.size(); ++i) {
            const QString name = lastComponents(parts[i], depth[i]);
            const auto it = firstPathOf.constFind(name);
            if (it == firstPathOf.constEnd()) {
                firstPathOf.insert(name, cleaned[i]);
            } else if (*it != cleaned[i]) {
                shared.insert(name, true);
            }
        }
        for (qsizetype i = 0; i < paths.size(); ++i) {
            if (!shared.value(lastComponents(parts[i], depth[i]), false)) {
                continue;
            }
            collided[i] = true;
            if (depth[i] < parts[i].size()) {
                ++depth[i];
                deepened = true;
            }
        }
    }
    QStringList names;
    for (qsizetype i = 0; i < paths.size(); ++i) {
        QString name = lastComponents(parts[i], depth[i]);
        // A whole absolute path that had to be told apart keeps its leading '/': "/a.wav".
        if (collided[i] && depth[i] >= parts[i].size() && cleaned[i].startsWith(QLatin1Char('/'))) {
            name.prepend(QLatin1Char('/'));
        }
        names.append(name);
    }
    return names;
}

}  // namespace earshot::ui
