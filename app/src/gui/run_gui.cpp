// run_gui() and run_gui_request(): the QApplication, the main window and its controller; the
// event loop, or a screenshot of one page (`earshot gui --screenshot FILE.png`).
#include "gui/run_gui.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QEventLoop>
#include <QLockFile>
#include <QMenu>
#include <QPixmap>
#include <QTimer>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <ostream>

#include "desktop/dbus_application.h"
#include "desktop/focused_window_typer.h"
#include "desktop/instance_requests.h"
#include "desktop/portal_global_shortcut.h"
#include "desktop/portal_request.h"
#include "desktop/tray_connection.h"
#include "earshot/app/cli.h"
#include "earshot/ui/app_icon.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/live/dictation_target.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"
#include "earshot/ui/tray/tray_icon.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui/models/model_downloads.h"

namespace earshot::app {

namespace {

// Files queued with --screenshot must finish within this before the window is rendered anyway.
constexpr int kScreenshotFilesTimeoutMs = 10 * 60 * 1000;
constexpr std::string_view kGraphViewPrefix = "graph:";

// Whether Qt can open a window: on X11/Wayland systems, without a display and without an explicit
// platform, QApplication would abort.
bool has_display() {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN) && !defined(Q_OS_ANDROID)
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
#else
    return true;
#endif
}

void set_application_names() {
    QApplication::setOrganizationName(QStringLiteral("Earshot"));
    QApplication::setApplicationName(QStringLiteral("Earshot"));
    QApplication::setApplicationDisplayName(QStringLiteral("Earshot"));
    QApplication::setDesktopFileName(QStringLiteral("org.earshot.Earshot"));
    QApplication::setWindowIcon(ui::appIcon());
}

// The Live page's "Type into the focused window" box follows the setting (and sets it); the
// target gets every live update and sends the committed text through the typer.
void connect_dictation_target(ui::MainWindow& window, GuiController& controller,
                              FocusedWindowTyper& typer, ui::DictationTarget& target) {
    QCheckBox* box = window.livePanel()->typeIntoFocusedWindowBox();
    box->setChecked(controller.settings().typeIntoFocusedWindow);
    target.setEnabled(box->isChecked());
    // The box's tooltip says which way the text goes (the automatic choice or the setting's).
    const QString tip = box->toolTip();
    auto showWay = [box, tip, &typer](const ui::Settings& settings) {
        typer.setMethod(typing_method_from_setting(settings.typingMethod));
        box->setToolTip(tip + QStringLiteral("\n") +
                        QObject::tr("Sent with %1.").arg(typer.wayInUse()));
    };
    showWay(controller.settings());
    QObject::connect(&window, &ui::MainWindow::settingsChanged, box, showWay);
    target.setSink([&typer, &controller](const QString& text) {
        // Earshot's own window has the focus: the transcript already shows the text, and keys
        // sent here would land in its own controls.
        if (QApplication::activeWindow() != nullptr) return QString();
        typer.setMethod(typing_method_from_setting(controller.settings().typingMethod));
        return typer.send(text);
    });
    QObject::connect(box, &QCheckBox::toggled, &controller, [&controller, &target](bool on) {
        target.setEnabled(on);
        if (controller.settings().typeIntoFocusedWindow != on) {
            ui::Settings settings = controller.settings();
            settings.typeIntoFocusedWindow = on;
            controller.applySettings(settings);
        }
    });
    QObject::connect(
        &window, &ui::MainWindow::settingsChanged, box,
        [box](const ui::Settings& settings) { box->setChecked(settings.typeIntoFocusedWindow); });
    QObject::connect(&controller.live(), &LiveBridge::updated, &target,
                     &ui::DictationTarget::apply);
    QObject::connect(&target, &ui::DictationTarget::failed, window.livePanel(),
                     &ui::LivePanel::setStatusText);
}

}  // namespace

bool valid_view(const std::string& view) {
    if (view == "live" || view == "files" || view == "model" || view == "inspector" ||
        view == "tray") {
        return true;
    }
    return view.starts_with(kGraphViewPrefix) && view.size() > kGraphViewPrefix.size();
}

bool show_view(ui::MainWindow& window, const std::string& view) {
    using Page = ui::MainWindow::Page;
    if (view == "live") {
        window.showPage(Page::live);
    } else if (view == "files") {
        window.showPage(Page::files);
    } else if (view == "model") {
        window.showPage(Page::model);
    } else if (view == "inspector") {
        window.showPage(Page::inspector);
    } else if (view == "tray") {
        window.showPage(Page::live);  // the screenshot is the tray's menu (run_gui_request)
    } else if (valid_view(view)) {
        window.showPage(Page::inspector);
        if (auto* inspector = qobject_cast<ui::InspectorWidget*>(window.inspectorWidget())) {
            inspector->showEntry(QString::fromStdString(view.substr(kGraphViewPrefix.size())));
        }
    } else {
        return false;
    }
    return true;
}

QImage render_window(ui::MainWindow& window) {
    if (!window.isVisible()) {
        window.show();
    }
    // Layouts and deferred deletions settle over a few turns of the event loop.
    for (int i = 0; i < 3; ++i) {
        QApplication::processEvents();
    }
    return window.grab().toImage();
}

bool wait_for_files(GuiController& controller, int timeout_ms) {
    if (controller.files().isIdle()) {
        return true;
    }
    QEventLoop loop;
    QObject::connect(&controller.files(), &FilesWorker::idle, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
    loop.exec();
    return controller.files().isIdle();
}

int run_gui_request(const GuiRequest& request, std::ostream& err) {
    if (!valid_view(request.view)) {
        err << "earshot gui: unknown --view \"" << request.view
            << "\" (expected live, files, model, inspector, tray or graph:ENTRY)\n";
        return kExitBadInput;
    }
    const bool screenshot = !request.screenshot.empty();
    if (!has_display()) {
        if (!screenshot) {
            err << "earshot: no display (DISPLAY and WAYLAND_DISPLAY are unset). Start it under "
                   "xvfb-run, or set QT_QPA_PLATFORM=offscreen; see earshot --help for the "
                   "command line.\n";
            return 1;
        }
        qputenv("QT_QPA_PLATFORM", "offscreen");  // a screenshot needs no screen
    }
    // QApplication keeps references to argc and argv for its whole life.
    static char program[] = "earshot";
    static char* args[] = {program, nullptr};
    int argc = 1;
    QApplication application(argc, args);
    set_application_names();
    // Held for the window's life from here, before the model loads and the socket listens, so a
    // `earshot toggle` sent meanwhile waits for this window instead of starting another.
    QLockFile startLock(instance_lock_path(instance_socket_path()));
    if (!screenshot) {
        startLock.setStaleLockTime(0);
        startLock.tryLock(0);  // held by another window: this one still runs
    }

    ui::MainWindow window;
    GuiPaths paths;
    paths.journal = !screenshot;     // a screenshot shows no private transcript
    paths.keepLayout = !screenshot;  // and the default layout
    GuiController controller(window, paths);
    ModelDownloads downloads(*window.modelPanel()->catalogView());  // the Model page's catalog
    // "Type into the focused window": committed dictation also goes to the focused application.
    FocusedWindowTyper typer;
    ui::DictationTarget target;
    connect_dictation_target(window, controller, typer, target);
    QObject::connect(&typer, &FocusedWindowTyper::sendFailed, &target,
                     &ui::DictationTarget::failed);
    // The tray: idle, microphone open or listening, start/stop, show, quit (where the desktop
    // has a tray).
    ui::TrayIcon tray(&window);
    connect_tray(tray, window, controller);
    QObject::connect(&tray, &ui::TrayIcon::quitRequested, &application, &QApplication::quit);
    // On Wayland the desktop's GlobalShortcuts portal takes the global shortcut (the controller
    // grabs it on X11).
    std::unique_ptr<PortalGlobalShortcut> portalShortcut;
    if (!screenshot && wayland_desktop() && portal_on_bus(QDBusConnection::sessionBus())) {
        portalShortcut = std::make_unique<PortalGlobalShortcut>(QDBusConnection::sessionBus());
        connect_portal_shortcut(*portalShortcut, window, controller);
    }
    if (!request.backend.empty()) {
        controller.overrideBackend(QString::fromStdString(request.backend));
    }
    // The model loads on the loader's thread; the window shows meanwhile, with a busy bar.
    bool modelSettled = false;
    QObject::connect(&controller, &GuiController::initialModelSettled, &controller,
                     [&modelSettled] { modelSettled = true; });
    controller.openInitialModel(QString::fromStdString(request.model),
                                QString::fromStdString(request.vocabulary));
    QStringList files;
    for (const std::string& file : request.transcribe) files << QString::fromStdString(file);
    if (!files.isEmpty()) {
        controller.filesQueue().addFiles(files);
    }

    if (!screenshot) {
        // `earshot toggle` / `start` / `stop` from desktop shortcuts reach this window here.
        InstanceServer instance(instance_socket_path(), [&](const InstanceRequest& r) {
            return answer_instance_request(controller, r);
        });
        const bool inTray = tray.showIfAvailable();
        // A start arriving while the model still loads begins once it is there.
        if (const QString why = instance.listen(); !why.isEmpty()) {
            err << "earshot: " << why.toStdString()
                << "; earshot toggle will not reach this window\n";
        }
        // The same requests on the session bus (org.freedesktop.Application), and the committed
        // text as a signal.
        std::unique_ptr<DbusApplication> dbus;
        if (session_bus_configured()) {
            dbus = std::make_unique<DbusApplication>(QDBusConnection::sessionBus());
            connect_dbus_application(*dbus, window, controller);
            if (const QString why = dbus->registerOnBus(); !why.isEmpty()) {
                err << "earshot: " << why.toStdString()
                    << "; its D-Bus interface will not reach this window\n";
            }
        }
        if (!files.isEmpty()) {
            window.showPage(ui::MainWindow::Page::files);
        } else if (request.view != "live") {
            show_view(window, request.view);
        }
        if (request.hidden && inTray) {
            // The autostart entry's start: in the tray; its Show opens the window.
        } else {
            if (request.hidden) {
                err << "earshot: the desktop has no system tray; showing the window\n";
            }
            window.show();
        }
        return QApplication::exec();
    }

    window.show();
    if (!modelSettled) {
        // A screenshot shows the model the window settles on, not the busy bar.
        QEventLoop loop;
        QObject::connect(&controller, &GuiController::initialModelSettled, &loop,
                         &QEventLoop::quit);
        loop.exec();
    }
    // Without a model the files wait for one: render them queued.
    if (!files.isEmpty() && controller.hasModel() &&
        !wait_for_files(controller, kScreenshotFilesTimeoutMs)) {
        err << "earshot gui: the files were not transcribed within "
            << kScreenshotFilesTimeoutMs / 1000 << " s; rendering them as they are\n";
    }
    show_view(window, request.view);
    if (!files.isEmpty() && request.view == "files") {
        // The first file's result with its first segment clicked, as a user would look at it.
        const int first = controller.filesQueue().jobIds().value(0, -1);
        window.filesPanel()->selectJob(first);
        window.filesPanel()->selectSegment(0);
    }
    QImage image;
    if (request.view == "tray") {
        // The tray's menu as it opens while dictating (it draws offscreen; the tray does not).
        render_window(window);
        tray.setListening(true);
        tray.menu()->adjustSize();
        image = tray.menu()->grab().toImage();
    } else {
        image = render_window(window);
    }
    if (image.isNull() || !image.save(QString::fromStdString(request.screenshot), "PNG")) {
        err << "earshot gui: cannot write the screenshot " << request.screenshot << "\n";
        return 1;
    }
    err << "earshot gui: wrote " << request.screenshot << " (" << image.width() << "x"
        << image.height() << ")\n";
    return kExitOk;
}

int run_gui(int /*argc*/, char** /*argv*/, const std::string& model_path) {
    GuiRequest request;
    request.model = model_path;
    return run_gui_request(request, std::cerr);
}

}  // namespace earshot::app
