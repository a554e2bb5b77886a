// The running instance's local socket (QLocalServer at a per-user path): `earshot toggle`, `start`
// and `stop` from any desktop shortcut reach the GUI through it. One request line, one reply line.
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QLocalServer;
class QLocalSocket;

namespace earshot::app {

// What a client asks: toggle dictation, start it (optionally on a paced audio file instead of the
// microphone: "start FILE"), stop it, or report the state.
enum class InstanceAction { toggle, start, stop, status };

struct InstanceRequest {
    InstanceAction action = InstanceAction::status;
    QString input;  // start/toggle: an audio file to dictate from (paced); empty: the microphone
};

// The socket's path: $EARSHOT_INSTANCE_SOCKET when set, else "earshot-instance" in the user's
// runtime directory ($XDG_RUNTIME_DIR, private to the user).
QString instance_socket_path();

// The lock a window takes as it starts, before its model loads and its socket listens:
// `earshot toggle` waits for such a window instead of starting a second one.
QString instance_lock_path(const QString& socketPath);
// Whether a live process holds that lock (a window is starting or running).
bool instance_lock_held(const QString& socketPath);

// The request line ("toggle", "start", "start\t/path/file.wav", "stop", "status") and back.
QString format_request(const InstanceRequest& request);
bool parse_request(const QString& line, InstanceRequest& request);

class InstanceServer : public QObject {
    Q_OBJECT

public:
    // Answers each request with the handler's reply line: "listening", "idle" or "error: ...".
    using Handler = std::function<QString(const InstanceRequest&)>;
    InstanceServer(QString path, Handler handler, QObject* parent = nullptr);
    ~InstanceServer() override;

    // Starts listening; a stale socket file left by a crashed instance is replaced, a live
    // instance is not. Returns the reason on failure, empty on success.
    QString listen();
    QString path() const { return m_path; }

private:
    void accept();
    void answer(QLocalSocket* socket);

    QString m_path;
    Handler m_handler;
    QLocalServer* m_server = nullptr;
};

// The client side, blocking: sends one request and returns the reply line; empty when no instance
// answered within `timeout_ms`.
QString send_instance_request(const QString& path, const InstanceRequest& request, int timeout_ms);

}  // namespace earshot::app
