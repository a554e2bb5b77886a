// FocusedWindowTyper: sends dictated text to the application that has the keyboard focus, by
// simulated typing (X11 XTest; on Wayland the desktop portal's remote-desktop keyboard, else wtype
// or ydotool) or through the clipboard and the paste shortcut (restoring the clipboard afterwards).
#pragma once

#include <QDBusConnection>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

class QTimer;

namespace earshot::app {

class PortalKeyboard;
class X11Keyboard;

enum class TypingMethod { automatic, keys, clipboard };

// "auto", "keys" or "clipboard" (the setting's values); anything else is automatic.
TypingMethod typing_method_from_setting(const QString& value);

class FocusedWindowTyper : public QObject {
    Q_OBJECT

public:
    explicit FocusedWindowTyper(QObject* parent = nullptr);
    ~FocusedWindowTyper() override;

    void setMethod(TypingMethod method) { m_method = method; }
    // The bus whose desktop portal types on Wayland (default: the session bus); set before the
    // first send.
    void setPortalBus(const QDBusConnection& bus) { m_portalBus = bus; }
    // Sends `text`; returns why it could not, naming the Debian package that is missing, or empty
    // when it was sent (through the portal: handed to it; a refusal comes as sendFailed()).
    QString send(const QString& text);
    // The way send() takes with the current method and desktop, in words ("XTest keys", "the
    // desktop portal's remote-desktop keyboard", "wtype", ...).
    QString wayInUse();

Q_SIGNALS:
    // Text sent later could not go the way send() chose: a paste that waited for the one before
    // it, or the portal refused (the reason, and where the text went instead).
    void sendFailed(const QString& error);

private:
    bool onX11() const;
    bool onWayland() const;
    PortalKeyboard* portalKeyboard();
    void portalFailed(const QString& why, const QString& untyped);
    QString x11Keyboard(X11Keyboard*& keyboard);
    QString sendKeys(const QString& text);
    QString sendClipboard(const QString& text);
    QString paste(const QString& text);
    void pasteRead();
    QString runHelper(const QStringList& wtypeArgs, const QStringList& ydotoolArgs);

    TypingMethod m_method = TypingMethod::automatic;
    std::unique_ptr<X11Keyboard> m_x11;
    QString m_x11Error;
    bool m_x11Tried = false;
    std::optional<QDBusConnection> m_portalBus;
    PortalKeyboard* m_portal = nullptr;  // on Wayland, where the bus has the portal
    bool m_portalChecked = false;
    bool m_portalRefused = false;  // it failed once: wtype/ydotool from then on
    // After a paste: sends what was queued meanwhile, else puts the user's clipboard back.
    QTimer* m_restore = nullptr;
    QString m_savedClipboard;
    bool m_clipboardSaved = false;
    bool m_pasteInFlight = false;  // pasted, and the target has not read it and had its time
    bool m_pasteRead = false;
    QString m_queuedText;  // pieces committed while a paste was in flight, in order
};

}  // namespace earshot::app
