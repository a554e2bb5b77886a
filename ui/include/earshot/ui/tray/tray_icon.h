// TrayIcon: Earshot in the desktop's tray (where there is one): idle or listening at a glance,
// a menu to start or stop dictation, show the window and quit; while dictation runs, closing the
// window hides it to the tray instead of quitting.
#pragma once

#include <QIcon>
#include <QObject>

class QAction;
class QMenu;
class QSystemTrayIcon;
class QWidget;

namespace earshot::ui {

class TrayIcon : public QObject {
    Q_OBJECT

public:
    // `window` is shown again from the menu and hidden to the tray on close while listening.
    explicit TrayIcon(QWidget* window, QObject* parent = nullptr);
    ~TrayIcon() override;

    // Idle or listening: the icon, its tooltip and the menu's first entry follow.
    void setListening(bool listening);
    bool isListening() const { return m_listening; }
    // Shows it when the desktop has a tray; false otherwise.
    bool showIfAvailable();

    QMenu* menu() const { return m_menu; }
    QAction* toggleAction() const { return m_toggle; }
    QIcon currentIcon() const;

    // The app icon with a red dot (listening) or as it is (idle).
    static QIcon stateIcon(bool listening);

signals:
    void toggleRequested();
    void quitRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_window;
    QMenu* m_menu;
    QAction* m_toggle;
    QSystemTrayIcon* m_tray;
    bool m_listening = false;
};

}  // namespace earshot::ui
