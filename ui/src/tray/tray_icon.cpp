// TrayIcon: Earshot in the desktop's tray (where there is one): idle, idle with the microphone
// open for the pre-roll, or listening at a glance, in words atop a menu to start or stop
// dictation, show the window and quit.
#include "earshot/ui/tray/tray_icon.h"

#include <QAction>
#include <QCloseEvent>
#include <QMenu>
#include <QPainter>
#include <QPen>
#include <QPixmap>
#include <QRectF>
#include <QSystemTrayIcon>
#include <QWidget>
#include <algorithm>

#include "earshot/ui/app_icon.h"

namespace earshot::ui {

TrayIcon::TrayIcon(QWidget* window, QObject* parent)
    : QObject(parent),
      m_window(window),
      m_menu(new QMenu(window)),
      m_tray(new QSystemTrayIcon(this)) {
    m_menu->setObjectName(QStringLiteral("trayMenu"));
    m_status = m_menu->addAction(QString());  // what the icon shows, in words
    m_status->setEnabled(false);
    m_menu->addSeparator();
    m_toggle = m_menu->addAction(tr("Start dictation"));
    connect(m_toggle, &QAction::triggered, this, &TrayIcon::toggleRequested);
    QAction* show = m_menu->addAction(tr("Show Earshot"));
    connect(show, &QAction::triggered, this, [this] {
        m_window->show();
        m_window->raise();
        m_window->activateWindow();
    });
    m_menu->addSeparator();
    QAction* quit = m_menu->addAction(tr("Quit"));
    connect(quit, &QAction::triggered, this, &TrayIcon::quitRequested);
    m_tray->setContextMenu(m_menu);
    connect(m_tray, &QSystemTrayIcon::activated, this,
            [this](QSystemTrayIcon::ActivationReason reason) {
                if (reason == QSystemTrayIcon::Trigger) Q_EMIT toggleRequested();
            });
    m_window->installEventFilter(this);
    setListening(false);
}

TrayIcon::~TrayIcon() = default;

QIcon TrayIcon::stateIcon(TrayState state) {
    const QIcon base = appIcon();
    if (state == TrayState::idle) return base;
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64}) {
        QPixmap pixmap = base.pixmap(size, size);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        const double dot = size * 0.45;
        const QRectF corner(size - dot, size - dot, dot, dot);
        if (state == TrayState::listening) {  // a red dot
            painter.setPen(Qt::NoPen);
            painter.setBrush(QColor(220, 40, 40));
            painter.drawEllipse(corner);
        } else {  // an amber ring: the microphone is open, nothing is transcribed
            const double pen = std::max(1.5, size * 0.09);
            painter.setPen(QPen(QColor(240, 160, 20), pen));
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(corner.adjusted(pen / 2, pen / 2, -pen / 2, -pen / 2));
        }
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

QIcon TrayIcon::currentIcon() const { return m_tray->icon(); }

TrayState TrayIcon::state() const {
    if (m_listening) return TrayState::listening;
    return m_microphoneOpen ? TrayState::microphoneOpen : TrayState::idle;
}

QString TrayIcon::toolTip() const { return m_tray->toolTip(); }

void TrayIcon::setListening(bool listening) {
    m_listening = listening;
    update();
}

void TrayIcon::setMicrophoneOpen(bool open) {
    m_microphoneOpen = open;
    update();
}

void TrayIcon::update() {
    const TrayState now = state();
    m_tray->setIcon(stateIcon(now));
    QString words;
    switch (now) {
        case TrayState::idle:
            words = tr("Idle");
            break;
        case TrayState::microphoneOpen:
            words = tr("Idle, microphone open (pre-roll)");
            break;
        case TrayState::listening:
            words = tr("Listening");
            break;
    }
    m_tray->setToolTip(tr("Earshot: %1").arg(words.toLower()));
    m_status->setText(words);
    m_status->setIcon(stateIcon(now));
    m_toggle->setText(m_listening ? tr("Stop dictation") : tr("Start dictation"));
    m_toggle->setIcon(stateIcon(m_listening ? TrayState::idle : TrayState::listening));
}

bool TrayIcon::showIfAvailable() {
    if (!QSystemTrayIcon::isSystemTrayAvailable()) return false;
    m_tray->show();
    return true;
}

bool TrayIcon::eventFilter(QObject* watched, QEvent* event) {
    // While dictating, closing the window keeps Earshot listening in the tray.
    if (watched == m_window && event->type() == QEvent::Close && m_listening &&
        m_tray->isVisible()) {
        m_window->hide();
        event->ignore();
        return true;
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace earshot::ui
