// The running instance's local socket (QLocalServer at a per-user path): `earshot toggle`, `start`
// and `stop` from any desktop shortcut reach the GUI through it. One request line, one reply line.
#include "desktop/instance_server.h"

#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>
#include <QStandardPaths>
#include <utility>

namespace earshot::app {

namespace {

constexpr int kProbeTimeoutMs = 500;       // a live instance answers a connect at once
constexpr qint64 kMaxRequestBytes = 4096;  // one line: an action and a file path

}  // namespace

QString instance_socket_path() {
    const QString explicitPath = qEnvironmentVariable("EARSHOT_INSTANCE_SOCKET");
    if (!explicitPath.isEmpty()) return explicitPath;
    // XDG_RUNTIME_DIR, or a private /tmp/runtime-$USER that Qt creates with mode 0700.
    QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty()) dir = QDir::tempPath();
    return dir + QStringLiteral("/earshot-instance");
}

QString instance_lock_path(const QString& socketPath) {
    return socketPath + QStringLiteral(".lock");
}

bool instance_lock_held(const QString& socketPath) {
    QLockFile lock(instance_lock_path(socketPath));
    lock.setStaleLockTime(0);  // a lock whose process is gone is stale at once
    return !lock.tryLock(0);
}

QString format_request(const InstanceRequest& request) {
    QString line;
    switch (request.action) {
        case InstanceAction::toggle:
            line = QStringLiteral("toggle");
            break;
        case InstanceAction::start:
            line = QStringLiteral("start");
            break;
        case InstanceAction::stop:
            line = QStringLiteral("stop");
            break;
        case InstanceAction::status:
            line = QStringLiteral("status");
            break;
    }
    if (!request.input.isEmpty()) line += QLatin1Char('\t') + request.input;
    return line;
}

bool parse_request(const QString& line, InstanceRequest& request) {
    const qsizetype tab = line.indexOf(QLatin1Char('\t'));
    const QString action = tab < 0 ? line : line.left(tab);
    request.input = tab < 0 ? QString() : line.mid(tab + 1);
    if (action == QLatin1String("toggle")) {
        request.action = InstanceAction::toggle;
    } else if (action == QLatin1String("start")) {
        request.action = InstanceAction::start;
    } else if (action == QLatin1String("stop")) {
        request.action = InstanceAction::stop;
    } else if (action == QLatin1String("status")) {
        request.action = InstanceAction::status;
    } else {
        return false;
    }
    return request.input.isEmpty() || request.action == InstanceAction::start ||
           request.action == InstanceAction::toggle;
}

InstanceServer::InstanceServer(QString path, Handler handler, QObject* parent)
    : QObject(parent), m_path(std::move(path)), m_handler(std::move(handler)) {}

InstanceServer::~InstanceServer() = default;

QString InstanceServer::listen() {
    if (m_server == nullptr) {
        m_server = new QLocalServer(this);
        m_server->setSocketOptions(QLocalServer::UserAccessOption);
        connect(m_server, &QLocalServer::newConnection, this, &InstanceServer::accept);
    }
    if (m_server->listen(m_path)) return {};
    if (m_server->serverError() == QAbstractSocket::AddressInUseError) {
        QLocalSocket probe;
        probe.connectToServer(m_path);
        if (probe.waitForConnected(kProbeTimeoutMs)) {
            return tr("another Earshot is running (%1)").arg(m_path);
        }
        QLocalServer::removeServer(m_path);  // left by an instance that did not end cleanly
        if (m_server->listen(m_path)) return {};
    }
    return tr("cannot listen on %1: %2").arg(m_path, m_server->errorString());
}

void InstanceServer::accept() {
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { answer(socket); });
        if (socket->canReadLine()) answer(socket);
    }
}

void InstanceServer::answer(QLocalSocket* socket) {
    if (!socket->canReadLine()) {
        if (socket->bytesAvailable() > kMaxRequestBytes) socket->abort();
        return;
    }
    const QString line = QString::fromUtf8(socket->readLine(kMaxRequestBytes)).trimmed();
    InstanceRequest request;
    const QString reply = parse_request(line, request)
                              ? m_handler(request)
                              : QStringLiteral("error: unknown request \"%1\"").arg(line);
    socket->write(reply.toUtf8() + '\n');
    socket->flush();
    socket->disconnectFromServer();
}

QString send_instance_request(const QString& path, const InstanceRequest& request, int timeout_ms) {
    QLocalSocket socket;
    socket.connectToServer(path);
    if (!socket.waitForConnected(timeout_ms)) return {};
    socket.write(format_request(request).toUtf8() + '\n');
    if (!socket.waitForBytesWritten(timeout_ms)) return {};
    QByteArray reply;
    while (!reply.contains('\n')) {
        if (!socket.waitForReadyRead(timeout_ms)) break;
        reply += socket.readAll();
    }
    return QString::fromUtf8(reply).trimmed();
}

}  // namespace earshot::app
