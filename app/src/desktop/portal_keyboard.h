// PortalKeyboard: typing on Wayland through the desktop portal's RemoteDesktop interface: a
// session with the keyboard (CreateSession, SelectDevices, Start; the desktop may ask the user),
// then each character as a keysym pressed and released (NotifyKeyboardKeysym).
#pragma once

#include <QDBusConnection>
#include <QObject>
#include <QString>
#include <cstdint>
#include <vector>

namespace earshot::app {

// The X keysym that types each character of `text`: Latin-1 characters are their own keysyms,
// newline and tab are Return and Tab, other characters are 0x01000000 + their code point; other
// control characters are left out.
std::vector<std::int32_t> portal_keysyms(const QString& text);

class PortalKeyboard : public QObject {
    Q_OBJECT

public:
    enum class State { unstarted, starting, ready, failed };

    explicit PortalKeyboard(const QDBusConnection& bus, QObject* parent = nullptr);
    ~PortalKeyboard() override;  // closes the session

    // Types `text` into the focused window; the first call starts the session and the text waits
    // for it (failed() hands it back when the desktop refuses).
    void type(const QString& text);
    State state() const { return m_state; }
    // Why the session could not start (after failed()).
    const QString& error() const { return m_error; }

Q_SIGNALS:
    void ready();
    // The desktop refused or has no RemoteDesktop portal: `why`, and the text not typed.
    void failed(const QString& why, const QString& untyped);

private:
    void start();
    void fail(const QString& why);
    void sendKeysyms(const QString& text);

    QDBusConnection m_bus;
    State m_state = State::unstarted;
    QString m_session;  // the session's object path, once created
    QString m_pending;  // typed before the session was ready
    QString m_error;
};

}  // namespace earshot::app
