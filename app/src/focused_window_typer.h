// FocusedWindowTyper: sends dictated text to the application that has the keyboard focus, by
// simulated typing (X11 XTest; Wayland's wtype or ydotool) or through the clipboard and the paste
// shortcut (restoring the clipboard afterwards).
#pragma once

#include <QObject>
#include <QString>
#include <memory>

class QTimer;

namespace earshot::app {

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
    // Sends `text`; returns why it could not, naming the Debian package that is missing, or empty
    // when it was sent.
    QString send(const QString& text);

signals:
    // A paste that waited for the one before it could not be sent (the reason, as send's).
    void pasteFailed(const QString& error);

private:
    bool onX11() const;
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
    // After a paste: sends what was queued meanwhile, else puts the user's clipboard back.
    QTimer* m_restore = nullptr;
    QString m_savedClipboard;
    bool m_clipboardSaved = false;
    bool m_pasteInFlight = false;  // pasted, and the target has not read it and had its time
    bool m_pasteRead = false;
    QString m_queuedText;  // pieces committed while a paste was in flight, in order
};

}  // namespace earshot::app
