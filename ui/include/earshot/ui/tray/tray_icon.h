// TrayIcon: Earshot in the desktop's tray (where there is one): idle, idle with the microphone
// open for the pre-roll, or listening at a glance, in words atop a menu to start or stop
// dictation, show the window and quit; while dictation runs, closing the window hides it to the
// tray instead of quitting.
#pragma once

#include <QIcon>
#include <QObject>

class QAction;
class QMenu;
class QSystemTrayIcon;
class QWidget;

namespace earshot::ui {

// What the tray shows: idle (the microphone closed), the microphone open while idle (the
// pre-roll keeps the last seconds), or listening.
enum class TrayState { idle, microphoneOpen, listening };

class TrayIcon : public QObject {
    Q_OBJECT

public:
    // `window` is shown again from the menu and hidden to the tray on close while listening.
    explicit TrayIcon(QWidget* window, QObject* parent = nullptr);
    ~TrayIcon() override;

    // Idle or listening: the icon, its tooltip and the menu's first entry follow.
    void setListening(bool listening);
    bool isListening() const { return m_listening; }
    // The microphone is open while idle (the pre-roll); shown while not listening.
    void setMicrophoneOpen(bool open);
    TrayState state() const;
    QString toolTip() const;
    // Shows it when the desktop has a tray; false otherwise.
    bool showIfAvailable();

    QMenu* menu() const { return m_menu; }
    QAction* toggleAction() const { return m_toggle; }
    QAction* statusAction() const { return m_status; }  // the state in words (disabled)
    QIcon currentIcon() const;

    // The app icon as it is (idle), with an amber ring (microphone open) or a red dot (listening).
    static QIcon stateIcon(TrayState state);

Q_SIGNALS:
    void toggleRequested();
    void quitRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_window;
    QMenu* m_menu;
    QAction* m_status;
    QAction* m_toggle;
    QSystemTrayIcon* m_tray;
    bool m_listening = false;
    bool m_microphoneOpen = false;

    void update();
};

}  // namespace earshot::ui
