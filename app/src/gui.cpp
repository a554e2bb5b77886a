// run_gui(): the QApplication and MainWindow, and opening a model by running `inspect` on it.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QString>
#include <QTimer>
#include <exception>
#include <iostream>
#include <sstream>

#include "earshot/app/cli.h"
#include "earshot/ui/app_icon.h"
#include "earshot/ui/main_window.h"

namespace earshot::app {

namespace {

// Whether Qt can open a window: on X11/Wayland systems, without a display and without an explicit
// platform, QApplication would abort.
bool hasDisplay() {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN) && !defined(Q_OS_ANDROID)
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
#else
    return true;
#endif
}

// A header for the model page: the folder or file name the user chose.
QString modelTitle(const QString& path) {
    const QFileInfo info(QDir::cleanPath(path));
    return info.fileName().isEmpty() ? path : info.fileName();
}

// Runs `inspect` on `path`; shows its text, or its error in a message box. Never throws.
void openModel(ui::MainWindow& window, const QString& path) {
    std::ostringstream out;
    std::ostringstream err;
    int code = kExitBadInput;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        code = run_inspect(InspectOptions{path.toStdString()}, out, err);
    } catch (const std::exception& error) {
        err << error.what();
    }
    QApplication::restoreOverrideCursor();

    if (code == kExitOk) {
        window.showModel(modelTitle(path), QString::fromStdString(out.str()));
        return;
    }
    QString message = QString::fromStdString(err.str()).trimmed();
    if (message.isEmpty()) {
        message = QObject::tr("earshot inspect failed with exit code %1.").arg(code);
    }
    QMessageBox::warning(&window, QObject::tr("Could not open model"),
                         QObject::tr("%1\n\n%2").arg(path, message));
}

}  // namespace

int run_gui(int argc, char** argv, const std::string& model_path) {
    if (!hasDisplay()) {
        std::cerr << "earshot: no display (DISPLAY and WAYLAND_DISPLAY are unset). Start it under "
                     "xvfb-run, or set QT_QPA_PLATFORM=offscreen; see earshot --help for the "
                     "command line.\n";
        return 1;
    }
    QApplication application(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Earshot"));
    QApplication::setApplicationDisplayName(QStringLiteral("Earshot"));
    QApplication::setDesktopFileName(QStringLiteral("org.earshot.Earshot"));
    QApplication::setWindowIcon(ui::appIcon());

    ui::MainWindow window;
    QObject::connect(&window, &ui::MainWindow::modelChosen, &window,
                     [&window](const QString& path) { openModel(window, path); });
    window.show();

    if (!model_path.empty()) {
        const QString path = QString::fromStdString(model_path);
        // After the window is up, so an error box has a parent on screen.
        QTimer::singleShot(0, &window, [&window, path] { openModel(window, path); });
    }
    return QApplication::exec();
}

}  // namespace earshot::app
