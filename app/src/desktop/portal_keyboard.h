// PortalKeyboard: typing on Wayland through the desktop portal's RemoteDesktop interface: a
// session with the keyboard (CreateSession, SelectDevices, Start; the desktop may ask the user),
// then each character as a keysym pressed and released (NotifyKeyboardKeysym). The session is
// persisted (persist_mode 2): the restore token the portal returns is kept in the config folder
// and handed to the next session's SelectDevices, so the desktop asks once, not every session.
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

struct PortalReply;

// Where the restore token is kept: <config_root()>/remote-desktop-restore-token (mode 0600).
QString portal_restore_token_path();

class PortalKeyboard : public QObject {
    Q_OBJECT

public:
    enum class State { unstarted, starting, ready, failed };

    // `tokenFile`: where the restore token is read and kept; empty: portal_restore_token_path().
    explicit PortalKeyboard(const QDBusConnection& bus, QObject* parent = nullptr,
                            QString tokenFile = QString());
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
    // A failure after a restore token was sent: the token is dropped and the session asked for
    // again without it (the desktop asks the user), once; else fail().
    void failOrAskAgain(const PortalReply& reply, const QString& step);
    void fail(const QString& why);
    void closeSession();
    QString readToken() const;
    void keepToken(const QString& token);
    void sendKeysyms(const QString& text);

    QDBusConnection m_bus;
    State m_state = State::unstarted;
    QString m_session;  // the session's object path, once created
    QString m_pending;  // typed before the session was ready
    QString m_error;
    QString m_tokenFile;
    bool m_tokenSent = false;  // this session's SelectDevices carried a restore token
};

}  // namespace earshot::app
