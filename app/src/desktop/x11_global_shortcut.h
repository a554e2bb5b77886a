// X11GlobalShortcut: one key combination grabbed on the X11 root window, so that it starts and
// stops dictation from any application. Its own Xlib connection (X11's macros stay in the .cpp).
#pragma once

#include <QObject>
#include <QString>

class QSocketNotifier;

namespace earshot::app {

class X11GlobalShortcut : public QObject {
    Q_OBJECT

public:
    explicit X11GlobalShortcut(QObject* parent = nullptr);
    ~X11GlobalShortcut() override;  // releases the grab

    // Grabs `keys` (one combination in QKeySequence's portable text, e.g. "Ctrl+Alt+D") with
    // and without NumLock and CapsLock; empty releases the current one. Returns why it could
    // not (no X11 display, a key X11 cannot name, another program holds the combination), empty
    // on success.
    QString setShortcut(const QString& keys);
    QString shortcut() const { return m_keys; }
    bool isGrabbed() const { return m_keycode != 0; }

Q_SIGNALS:
    // The combination was pressed (once per press: holding it does not repeat).
    void activated();
    // Its key was let go after a press (push-to-talk's end).
    void released();

private:
    void release();
    void readEvents();

    void* m_display = nullptr;  // Display*, opened on first use
    QSocketNotifier* m_notifier = nullptr;
    QString m_keys;
    unsigned m_keycode = 0;    // 0: nothing grabbed
    unsigned m_modifiers = 0;  // X11 modifier mask, without NumLock and CapsLock
    unsigned m_numLockMask = 0;
    bool m_pressed = false;  // between a press and its release
};

}  // namespace earshot::app
