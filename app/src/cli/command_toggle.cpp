// `earshot toggle`, `earshot start [--input FILE]`, `earshot stop` and `earshot status`: dictation
// in the running Earshot, through its local socket, for a desktop shortcut of any environment. With
// no instance running, toggle and start launch `earshot gui` detached and start dictation in it.
#include <QCoreApplication>
#include <QProcess>
#include <QThread>
#include <chrono>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

#include "cli/command_registry.h"
#include "desktop/instance_server.h"
#include "earshot/app/commands.h"

namespace earshot::app {

namespace {

constexpr int kRequestTimeoutMs = 5000;
// A fresh instance loads its model before it listens: the micro model takes a second, a large
// checkpoint longer.
constexpr auto kLaunchTimeout = std::chrono::seconds(120);
constexpr unsigned long kLaunchPollMs = 200;

struct ToggleOptions {
    InstanceAction action = InstanceAction::toggle;
    std::string input;
};

QString executable_path() {
    std::error_code error;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? QStringLiteral("earshot") : QString::fromStdString(exe.string());
}

// Waits until an instance answers on `path`; false after the launch timeout.
bool wait_for_instance(const QString& path) {
    const auto deadline = std::chrono::steady_clock::now() + kLaunchTimeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!send_instance_request(path, InstanceRequest{}, kRequestTimeoutMs).isEmpty()) {
            return true;
        }
        QThread::msleep(kLaunchPollMs);
    }
    return false;
}

// Starts `earshot gui` on its own and waits until its socket answers; false after the timeout.
bool launch_instance(const QString& path, std::ostream& err) {
    qint64 pid = 0;
    QProcess gui;
    gui.setProgram(executable_path());
    gui.setArguments({QStringLiteral("gui")});
    // Detached from this command's terminal or pipe: a caller reading our output must not wait
    // for the GUI to end.
    gui.setStandardInputFile(QProcess::nullDevice());
    gui.setStandardOutputFile(QProcess::nullDevice());
    gui.setStandardErrorFile(QProcess::nullDevice());
    if (!gui.startDetached(&pid)) {
        err << "earshot: no Earshot is running and it could not be started\n";
        return false;
    }
    err << "earshot: no Earshot was running; started one (pid " << pid << ")\n";
    if (wait_for_instance(path)) return true;
    err << "earshot: the new instance did not answer on " << path.toStdString() << "\n";
    return false;
}

int run_toggle(const ToggleOptions& options, std::ostream& out, std::ostream& err) {
    // QLocalSocket wants an application object; the CLI has none of its own.
    std::unique_ptr<QCoreApplication> app;
    static int argc = 1;
    static char program[] = "earshot";
    static char* argv[] = {program, nullptr};
    if (QCoreApplication::instance() == nullptr) {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    InstanceRequest request;
    request.action = options.action;
    if (!options.input.empty()) {
        request.input = QString::fromStdString(std::filesystem::absolute(options.input).string());
    }
    const QString path = instance_socket_path();
    QString reply = send_instance_request(path, request, kRequestTimeoutMs);
    if (reply.isEmpty()) {
        if (options.action == InstanceAction::stop || options.action == InstanceAction::status) {
            out << "idle (no Earshot is running)\n";
            return kExitOk;
        }
        if (instance_lock_held(path)) {
            // A window is starting (it takes the lock before it loads its model): wait for it.
            if (!wait_for_instance(path)) {
                err << "earshot: the starting Earshot did not answer on " << path.toStdString()
                    << "\n";
                return 1;
            }
        } else if (!launch_instance(path, err)) {
            return 1;
        }
        if (request.action == InstanceAction::toggle) request.action = InstanceAction::start;
        reply = send_instance_request(path, request, kRequestTimeoutMs);
        if (reply.isEmpty()) {
            err << "earshot: the instance did not answer\n";
            return 1;
        }
        // The new window answers while it still loads its model and starts once the model is
        // there: report where that ends, as a start in a ready window does.
        const auto deadline = std::chrono::steady_clock::now() + kLaunchTimeout;
        while (reply.startsWith(QLatin1String("starting")) &&
               std::chrono::steady_clock::now() < deadline) {
            QThread::msleep(kLaunchPollMs);
            InstanceRequest status;
            status.action = InstanceAction::status;
            const QString now = send_instance_request(path, status, kRequestTimeoutMs);
            if (now.isEmpty()) break;
            if (now != QLatin1String("starting")) {
                reply = now == QLatin1String("listening")
                            ? now
                            : QStringLiteral(
                                  "error: dictation did not start (the window says "
                                  "why)");
            }
        }
    }
    out << reply.toStdString() << "\n";
    return reply.startsWith(QLatin1String("error")) ? 1 : kExitOk;
}

ExtraCommand add_instance_command(CLI::App& root, const char* name, const char* description,
                                  InstanceAction action) {
    auto options = std::make_shared<ToggleOptions>();
    options->action = action;
    CLI::App* command = root.add_subcommand(name, description);
    if (action == InstanceAction::toggle || action == InstanceAction::start) {
        command->add_option("--input", options->input,
                            "Dictate from this audio file (paced like a microphone) instead of "
                            "the input device");
    }
    return {command, [options](std::ostream& out, std::ostream& err) {
                return run_toggle(*options, out, err);
            }};
}

}  // namespace

ExtraCommand add_toggle(CLI::App& root) {
    return add_instance_command(
        root, "toggle",
        "Start or stop dictation in the running Earshot (starts Earshot when none runs); "
        "prints listening or idle",
        InstanceAction::toggle);
}

ExtraCommand add_start(CLI::App& root) {
    return add_instance_command(root, "start",
                                "Start dictation in the running Earshot (starts Earshot when "
                                "none runs)",
                                InstanceAction::start);
}

ExtraCommand add_stop(CLI::App& root) {
    return add_instance_command(root, "stop", "Stop dictation in the running Earshot",
                                InstanceAction::stop);
}

ExtraCommand add_status(CLI::App& root) {
    return add_instance_command(root, "status",
                                "Print whether the running Earshot is listening, starting or idle",
                                InstanceAction::status);
}

}  // namespace earshot::app
