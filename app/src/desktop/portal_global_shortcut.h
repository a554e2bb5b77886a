// PortalGlobalShortcut: the toggle shortcut through the desktop portal's GlobalShortcuts
// interface (Wayland, where the compositor lets no client grab keys): a session, the shortcut
// bound with the Settings' combination as its preferred trigger, and its Activated signal.
#pragma once

#include <QDBusConnection>
#include <QDBusMessage>
#include <QObject>
#include <QString>

namespace earshot::ui {
class MainWindow;
}

namespace earshot::app {

class GuiController;

// The shortcut's id in the portal session.
inline constexpr char kToggleShortcutId[] = "toggle-dictation";

// A combination in QKeySequence's portable text ("Ctrl+Alt+D") as the XDG shortcuts
// specification writes a trigger ("CTRL+ALT+d"); empty when `keys` is empty or not one
// combination.
QString portal_trigger(const QString& keys);

class PortalGlobalShortcut : public QObject {
    Q_OBJECT

public:
    explicit PortalGlobalShortcut(const QDBusConnection& bus, QObject* parent = nullptr);
    ~PortalGlobalShortcut() override;  // closes the session

    // Binds the toggle shortcut with `keys` as its preferred trigger (the desktop may let the
    // user choose another); empty binds nothing. The answer comes as bound() or failed().
    void setShortcut(const QString& keys);
    QString shortcut() const { return m_keys; }
    bool isBound() const { return m_bound; }

Q_SIGNALS:
    void activated();
    // The portal's Deactivated: the shortcut was let go (push-to-talk's end).
    void released();
    // The desktop bound it; `trigger` is how it says the shortcut is pressed (may be empty).
    void bound(const QString& trigger);
    void failed(const QString& why);

private Q_SLOTS:
    void onActivated(const QDBusMessage& message);
    void onDeactivated(const QDBusMessage& message);

private:
    void bind();
    bool isOurs(const QDBusMessage& message) const;  // our session's toggle shortcut

    QDBusConnection m_bus;
    QString m_keys;
    QString m_session;  // the session's object path, once created
    bool m_creating = false;
    bool m_bound = false;
};

// On Wayland: binds the Settings' global shortcut through `shortcut` (and again when the
// Settings change it); its activation toggles dictation as `earshot toggle` does, and a refusal
// shows in the status bar.
void connect_portal_shortcut(PortalGlobalShortcut& shortcut, ui::MainWindow& window,
                             GuiController& controller);

}  // namespace earshot::app
