#include "desktop/autostart_entry.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace earshot::app {

namespace {

// Exec= quoting of the Desktop Entry Specification: a path with spaces or reserved characters
// goes in double quotes, with ", `, $ and \ escaped by a backslash.
QString exec_quoted(const QString& path) {
    static const QString kReserved = QStringLiteral(" \t\n\"'\\><~|&;$*?#()`");
    bool needsQuotes = false;
    for (const QChar c : path) needsQuotes = needsQuotes || kReserved.contains(c);
    if (!needsQuotes) return path;
    QString quoted = QStringLiteral("\"");
    for (const QChar c : path) {
        if (c == QLatin1Char('"') || c == QLatin1Char('`') || c == QLatin1Char('$') ||
            c == QLatin1Char('\\')) {
            quoted += QLatin1Char('\\');
        }
        quoted += c;
    }
    return quoted + QLatin1Char('"');
}

}  // namespace

QString autostart_entry_path() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/autostart/earshot.desktop");
}

bool autostart_entry_exists() { return QFileInfo::exists(autostart_entry_path()); }

QString write_autostart_entry(const QString& executable) {
    const QString path = autostart_entry_path();
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        return QCoreApplication::translate("Autostart", "cannot create the folder %1")
            .arg(QFileInfo(path).absolutePath());
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        return QCoreApplication::translate("Autostart", "cannot write %1: %2")
            .arg(path, file.errorString());
    }
    const QString entry = QStringLiteral(
                              "[Desktop Entry]\n"
                              "Type=Application\n"
                              "Name=Earshot\n"
                              "Comment=Dictation, started in the tray\n"
                              "Exec=%1 gui --hidden\n"
                              "Icon=earshot\n"
                              "Terminal=false\n"
                              "X-GNOME-Autostart-enabled=true\n")
                              .arg(exec_quoted(executable));
    file.write(entry.toUtf8());
    if (!file.commit()) {
        return QCoreApplication::translate("Autostart", "cannot write %1: %2")
            .arg(path, file.errorString());
    }
    return {};
}

QString remove_autostart_entry() {
    const QString path = autostart_entry_path();
    if (!QFileInfo::exists(path) || QFile::remove(path)) return {};
    return QCoreApplication::translate("Autostart", "cannot remove %1").arg(path);
}

}  // namespace earshot::app
