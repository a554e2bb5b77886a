// FakePortal: a stand-in for xdg-desktop-portal on a private D-Bus daemon (PrivateBus), for
// tests: the GlobalShortcuts and RemoteDesktop methods Earshot calls, answered through Request
// objects and their Response signal as the real frontend answers, with every call recorded.
#pragma once

#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDBusVirtualObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>
#include <atomic>
#include <utility>
#include <vector>

namespace earshot::test {

// A session bus of its own: `dbus-daemon --session` for one test, stopped with the object, and
// the connections made to it (closed first).
class PrivateBus {
public:
    PrivateBus() {
        m_daemon.start(QStringLiteral("dbus-daemon"),
                       {QStringLiteral("--session"), QStringLiteral("--nofork"),
                        QStringLiteral("--nopidfile"), QStringLiteral("--print-address")});
        if (!m_daemon.waitForStarted(5000)) {
            m_error = "dbus-daemon did not start (packaging/setup.sh installs dbus-daemon)";
            return;
        }
        while (!m_daemon.canReadLine() && m_daemon.waitForReadyRead(5000)) {
        }
        m_address = QString::fromUtf8(m_daemon.readLine()).trimmed();
        if (m_address.isEmpty()) m_error = "dbus-daemon printed no address";
    }
    ~PrivateBus() {
        for (const QString& name : m_names) QDBusConnection::disconnectFromBus(name);
        m_daemon.terminate();
        if (!m_daemon.waitForFinished(3000)) {
            m_daemon.kill();
            m_daemon.waitForFinished(3000);
        }
    }
    PrivateBus(const PrivateBus&) = delete;
    PrivateBus& operator=(const PrivateBus&) = delete;

    bool available() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }
    // The bus's address, for other processes (DBUS_SESSION_BUS_ADDRESS).
    const QString& address() const { return m_address; }

    // A new connection of this process to the bus (each has its own unique name).
    QDBusConnection connect() {
        static std::atomic<int> next{0};
        const QString name = QStringLiteral("earshot-test-bus-%1").arg(next.fetch_add(1));
        m_names << name;
        return QDBusConnection::connectToBus(m_address, name);
    }

private:
    QProcess m_daemon;
    QString m_address;
    QStringList m_names;
    std::string m_error;
};

struct PortalCall {
    QString interface;
    QString member;
    QVariantList arguments;
};

// An a{sv} argument as a map (QtDBus hands dictionaries over unconverted).
inline QVariantMap portal_map(const QVariant& value) {
    if (value.userType() == qMetaTypeId<QDBusArgument>()) {
        return qdbus_cast<QVariantMap>(value.value<QDBusArgument>());
    }
    return value.toMap();
}

// BindShortcuts' a(sa{sv}): each shortcut's id and properties.
inline std::vector<std::pair<QString, QVariantMap>> portal_shortcuts(const QVariant& value) {
    std::vector<std::pair<QString, QVariantMap>> shortcuts;
    if (value.userType() != qMetaTypeId<QDBusArgument>()) return shortcuts;
    const QDBusArgument argument = value.value<QDBusArgument>();
    argument.beginArray();
    while (!argument.atEnd()) {
        QString id;
        QVariantMap properties;
        argument.beginStructure();
        argument >> id >> properties;
        argument.endStructure();
        shortcuts.emplace_back(id, properties);
    }
    argument.endArray();
    return shortcuts;
}

class FakePortal : public QDBusVirtualObject {
public:
    static constexpr char kService[] = "org.freedesktop.portal.Desktop";
    static constexpr char kPath[] = "/org/freedesktop/portal/desktop";
    static constexpr char kGlobalShortcuts[] = "org.freedesktop.portal.GlobalShortcuts";
    static constexpr char kRemoteDesktop[] = "org.freedesktop.portal.RemoteDesktop";

    // Serves the portal's name and object on `bus` (a connection of its own).
    explicit FakePortal(const QDBusConnection& bus) : m_bus(bus) {
        m_serving = m_bus.registerVirtualObject(QLatin1String(kPath), this) &&
                    m_bus.registerService(QLatin1String(kService));
    }
    ~FakePortal() override {
        m_bus.unregisterService(QLatin1String(kService));
        m_bus.unregisterObject(QLatin1String(kPath));
    }

    bool serving() const { return m_serving; }
    // From now on `member`'s Request answers `code` (0 success, 1 cancelled, 2 other).
    void answer(const QString& member, uint code) { m_codes[member] = code; }
    // What Start grants (RemoteDesktop's devices bitmask; 1 is the keyboard).
    void grantDevices(uint devices) { m_devices = devices; }
    // RemoteDesktop persistence: a Start after a SelectDevices with persist_mode 2 returns a new
    // restore token ("restore-1", "restore-2", ...), each good for one later SelectDevices.
    // `refuseUnknown`: a SelectDevices with a token this portal did not issue (or one already
    // used) answers 2, as a portal that rejects an expired token; else such a token is ignored
    // and the user asked, as xdg-desktop-portal does.
    void issueRestoreTokens(bool refuseUnknown) {
        m_issueTokens = true;
        m_refuseUnknownTokens = refuseUnknown;
    }
    // How many RemoteDesktop sessions started without a valid restore token: each would have
    // shown the user the desktop's dialog.
    int dialogsShown() const { return m_dialogs; }

    const std::vector<PortalCall>& calls() const { return m_calls; }
    std::vector<PortalCall> callsTo(const QString& member) const {
        std::vector<PortalCall> found;
        for (const PortalCall& call : m_calls) {
            if (call.member == member) found.push_back(call);
        }
        return found;
    }
    // The session path the last CreateSession of `interface` handed out.
    QString session(const QString& interface) const { return m_sessions.value(interface); }

    // GlobalShortcuts' Activated (pressed) / Deactivated (let go) signal for `id` in `session`.
    void activate(const QString& session, const QString& id) {
        sendShortcutSignal(QStringLiteral("Activated"), session, id);
    }
    void deactivate(const QString& session, const QString& id) {
        sendShortcutSignal(QStringLiteral("Deactivated"), session, id);
    }
    void sendShortcutSignal(const QString& name, const QString& session, const QString& id) {
        QDBusMessage signal =
            QDBusMessage::createSignal(QLatin1String(kPath), QLatin1String(kGlobalShortcuts), name);
        signal << QVariant::fromValue(QDBusObjectPath(session)) << id << qulonglong{1234}
               << QVariantMap();
        m_bus.send(signal);
    }

    QString introspect(const QString& /*path*/) const override { return {}; }

    bool handleMessage(const QDBusMessage& message, const QDBusConnection& connection) override {
        const QString member = message.member();
        m_calls.push_back({message.interface(), member, message.arguments()});
        // Where each method keeps its options (the handle_token).
        static const QMap<QString, int> kOptionsAt{{QStringLiteral("CreateSession"), 0},
                                                   {QStringLiteral("BindShortcuts"), 3},
                                                   {QStringLiteral("SelectDevices"), 1},
                                                   {QStringLiteral("Start"), 2}};
        if (member == QLatin1String("NotifyKeyboardKeysym")) {
            connection.send(message.createReply());
            return true;
        }
        if (!kOptionsAt.contains(member)) {
            connection.send(message.createErrorReply(
                QStringLiteral("org.freedesktop.DBus.Error.UnknownMethod"), member));
            return true;
        }
        QString sender = message.service().mid(1);
        sender.replace(QLatin1Char('.'), QLatin1Char('_'));
        const QVariantMap options = portal_map(message.arguments().value(kOptionsAt[member]));
        const QString request = QStringLiteral("%1/request/%2/%3")
                                    .arg(QLatin1String(kPath), sender,
                                         options.value(QStringLiteral("handle_token")).toString());
        QVariantMap results;
        uint code = m_codes.value(member, 0u);
        const bool remoteDesktop = message.interface() == QLatin1String(kRemoteDesktop);
        if (remoteDesktop && member == QLatin1String("SelectDevices")) {
            const QString token = options.value(QStringLiteral("restore_token")).toString();
            m_restored = !token.isEmpty() && m_validTokens.removeOne(token);  // single use
            if (!token.isEmpty() && !m_restored && m_refuseUnknownTokens) code = 2;
            m_persist = options.value(QStringLiteral("persist_mode")).toUInt();
        } else if (remoteDesktop && member == QLatin1String("Start") && code == 0) {
            if (!m_restored) ++m_dialogs;
            if (m_issueTokens && m_persist == 2) {
                const QString token = QStringLiteral("restore-%1").arg(++m_tokensIssued);
                m_validTokens << token;
                results.insert(QStringLiteral("restore_token"), token);
            }
        }
        if (member == QLatin1String("CreateSession")) {
            const QString session =
                QStringLiteral("%1/session/%2/%3")
                    .arg(QLatin1String(kPath), sender,
                         options.value(QStringLiteral("session_handle_token")).toString());
            m_sessions.insert(message.interface(), session);
            results.insert(QStringLiteral("session_handle"), session);
        } else if (member == QLatin1String("Start")) {
            results.insert(QStringLiteral("devices"), m_devices);
        }
        connection.send(message.createReply(QVariant::fromValue(QDBusObjectPath(request))));
        QDBusMessage response = QDBusMessage::createSignal(
            request, QStringLiteral("org.freedesktop.portal.Request"), QStringLiteral("Response"));
        response << code << results;
        connection.send(response);
        return true;
    }

private:
    QDBusConnection m_bus;
    bool m_serving = false;
    std::vector<PortalCall> m_calls;
    QMap<QString, uint> m_codes;
    QMap<QString, QString> m_sessions;
    uint m_devices = 1;
    bool m_issueTokens = false;
    bool m_refuseUnknownTokens = false;
    bool m_restored = false;
    uint m_persist = 0;
    int m_tokensIssued = 0;
    int m_dialogs = 0;
    QStringList m_validTokens;
};

}  // namespace earshot::test
