// PortalKeyboard: typing on Wayland through the desktop portal's RemoteDesktop interface: a
// session with the keyboard (CreateSession, SelectDevices, Start; the desktop may ask the user),
// then each character as a keysym pressed and released (NotifyKeyboardKeysym).
#include "desktop/portal_keyboard.h"

#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <utility>

#include "core/files/data_root.h"
#include "desktop/portal_request.h"

namespace earshot::app {

namespace {

constexpr char kRemoteDesktop[] = "org.freedesktop.portal.RemoteDesktop";
constexpr char kSession[] = "org.freedesktop.portal.Session";
// SelectDevices' `types` and Start's `devices` bitmask: 1 keyboard, 2 pointer, 4 touchscreen.
constexpr uint kKeyboardDevice = 1;
// SelectDevices' `persist_mode` (RemoteDesktop version 2): 2, until the user revokes it.
constexpr uint kPersistUntilRevoked = 2;
// NotifyKeyboardKeysym's `state`.
constexpr uint kReleased = 0;
constexpr uint kPressed = 1;
// X keysyms (X11/keysymdef.h): Return, Tab, and the Unicode range's offset.
constexpr std::int32_t kKeysymReturn = 0xff0d;
constexpr std::int32_t kKeysymTab = 0xff09;
constexpr std::int32_t kKeysymBackSpace = 0xff08;
constexpr std::int32_t kKeysymUnicode = 0x01000000;

QString refusal(const PortalReply& reply, const QString& step) {
    if (!reply.error.isEmpty()) {
        return PortalKeyboard::tr("The desktop has no remote-desktop portal for typing (%1: %2)")
            .arg(step, reply.error);
    }
    if (reply.response == 1) {
        return PortalKeyboard::tr(
                   "The desktop refused keyboard access through its remote-desktop portal (%1 was "
                   "cancelled)")
            .arg(step);
    }
    return PortalKeyboard::tr(
               "The desktop's remote-desktop portal ended the request (%1 answered %2)")
        .arg(step)
        .arg(reply.response);
}

}  // namespace

std::vector<std::int32_t> portal_keysyms(const QString& text) {
    std::vector<std::int32_t> keysyms;
    for (const char32_t c : text.toStdU32String()) {
        if (c == U'\n') {
            keysyms.push_back(kKeysymReturn);
        } else if (c == U'\t') {
            keysyms.push_back(kKeysymTab);
        } else if (c == U'\b') {
            keysyms.push_back(kKeysymBackSpace);  // spoken commands taking back typed text
        } else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) {
            continue;  // control characters have no key
        } else if (c < 0x100) {
            keysyms.push_back(static_cast<std::int32_t>(c));
        } else {
            keysyms.push_back(kKeysymUnicode + static_cast<std::int32_t>(c));
        }
    }
    return keysyms;
}

QString portal_restore_token_path() {
    return QString::fromStdString((config_root() / "remote-desktop-restore-token").string());
}

PortalKeyboard::PortalKeyboard(const QDBusConnection& bus, QObject* parent, QString tokenFile)
    : QObject(parent),
      m_bus(bus),
      m_tokenFile(tokenFile.isEmpty() ? portal_restore_token_path() : std::move(tokenFile)) {}

PortalKeyboard::~PortalKeyboard() { closeSession(); }

void PortalKeyboard::closeSession() {
    if (m_session.isEmpty()) return;
    m_bus.send(QDBusMessage::createMethodCall(QLatin1String(kPortalService), m_session,
                                              QLatin1String(kSession), QStringLiteral("Close")));
    m_session.clear();
}

QString PortalKeyboard::readToken() const {
    QFile file(m_tokenFile);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.read(4096)).trimmed();
}

// The token grants typing without asking: readable by the user only, written whole.
void PortalKeyboard::keepToken(const QString& token) {
    if (token.isEmpty()) {
        QFile::remove(m_tokenFile);
        return;
    }
    QDir().mkpath(QFileInfo(m_tokenFile).absolutePath());
    QSaveFile file(m_tokenFile);
    if (!file.open(QIODevice::WriteOnly)) return;  // the desktop asks again next time
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(token.toUtf8() + '\n');
    file.commit();
}

void PortalKeyboard::type(const QString& text) {
    switch (m_state) {
        case State::ready:
            sendKeysyms(text);
            return;
        case State::failed:
            Q_EMIT failed(m_error, text);
            return;
        case State::unstarted:
            m_pending += text;
            start();
            return;
        case State::starting:
            m_pending += text;
            return;
    }
}

void PortalKeyboard::start() {
    m_state = State::starting;
    const QString iface = QLatin1String(kRemoteDesktop);
    QVariantMap options{{QStringLiteral("session_handle_token"), PortalRequest::newToken()}};
    PortalRequest::call(
        m_bus, iface, QStringLiteral("CreateSession"), {options}, 0, this,
        [this, iface](const PortalReply& created) {
            if (!created.ok()) return fail(refusal(created, QStringLiteral("CreateSession")));
            m_session = created.results.value(QStringLiteral("session_handle")).toString();
            if (m_session.isEmpty()) {
                return fail(tr("The desktop's remote-desktop portal gave no session"));
            }
            QVariantMap devices{{QStringLiteral("types"), kKeyboardDevice},
                                {QStringLiteral("persist_mode"), kPersistUntilRevoked}};
            const QString token = readToken();
            m_tokenSent = !token.isEmpty();
            if (m_tokenSent) devices.insert(QStringLiteral("restore_token"), token);
            PortalRequest::call(
                m_bus, iface, QStringLiteral("SelectDevices"),
                {QVariant::fromValue(QDBusObjectPath(m_session)), devices}, 1, this,
                [this, iface](const PortalReply& selected) {
                    if (!selected.ok()) {
                        return failOrAskAgain(selected, QStringLiteral("SelectDevices"));
                    }
                    PortalRequest::call(
                        m_bus, iface, QStringLiteral("Start"),
                        {QVariant::fromValue(QDBusObjectPath(m_session)), QString(), QVariantMap()},
                        2, this, [this](const PortalReply& started) {
                            if (!started.ok()) {
                                return failOrAskAgain(started, QStringLiteral("Start"));
                            }
                            // A token is good for one session: the next one gets this new one
                            // (none when the desktop does not persist sessions).
                            keepToken(
                                started.results.value(QStringLiteral("restore_token")).toString());
                            const uint granted =
                                started.results.value(QStringLiteral("devices")).toUInt();
                            if ((granted & kKeyboardDevice) == 0) {
                                return fail(
                                    tr("The desktop's remote-desktop portal did not "
                                       "grant the keyboard"));
                            }
                            m_state = State::ready;
                            Q_EMIT ready();
                            sendKeysyms(std::exchange(m_pending, QString()));
                        });
                });
        });
}

void PortalKeyboard::failOrAskAgain(const PortalReply& reply, const QString& step) {
    if (m_tokenSent) keepToken(QString());  // it did not restore the session
    // The user cancelling the dialog is an answer; an expired or refused token is not.
    if (m_tokenSent && reply.response != 1) {
        closeSession();
        start();
        return;
    }
    fail(refusal(reply, step));
}

void PortalKeyboard::fail(const QString& why) {
    m_state = State::failed;
    m_error = why;
    Q_EMIT failed(why, std::exchange(m_pending, QString()));
}

void PortalKeyboard::sendKeysyms(const QString& text) {
    const QDBusObjectPath session(m_session);
    for (const std::int32_t keysym : portal_keysyms(text)) {
        for (const uint state : {kPressed, kReleased}) {
            QDBusMessage message = QDBusMessage::createMethodCall(
                QLatin1String(kPortalService), QLatin1String(kPortalPath),
                QLatin1String(kRemoteDesktop), QStringLiteral("NotifyKeyboardKeysym"));
            message << QVariant::fromValue(session) << QVariantMap() << keysym << state;
            m_bus.send(message);  // in order on this connection; no reply is awaited
        }
    }
}

}  // namespace earshot::app
