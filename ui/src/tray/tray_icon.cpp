// TrayIcon: Earshot in the desktop's tray (where there is one): idle or listening at a glance,
// a menu to start or stop dictation, show the window and quit.
#include "earshot/ui/tray/tray_icon.h"

#include <QAction>
#include <QCloseEvent>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QRectF>
#include <QSystemTrayIcon>
#include <QWidget>

#include "earshot/ui/app_icon.h"

namespace earshot::ui {

TrayIcon::TrayIcon(QWidget* window, QObject* parent)
    : QObject(parent),
      m_window(window),
      m_menu(new QMenu(window)),
      m_tray(new QSystemTrayIcon(this)) {
    m_menu->setObjectName(QStringLiteral("trayMenu"));
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
                if (reason == QSystemTrayIcon::Trigger) emit toggleRequested();
            });
    m_window->installEventFilter(this);
    setListening(false);
}

TrayIcon::~TrayIcon() = default;

QIcon TrayIcon::stateIcon(bool listening) {
    const QIcon base = appIcon();
    if (!listening) return base;
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64}) {
        QPixmap pixmap = base.pixmap(size, size);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(220, 40, 40));
        const double dot = size * 0.45;
        painter.drawEllipse(QRectF(size - dot, size - dot, dot, dot));
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

QIcon TrayIcon::currentIcon() const { return m_tray->icon(); }

void TrayIcon::setListening(bool listening) {
    m_listening = listening;
    m_tray->setIcon(stateIcon(listening));
    m_tray->setToolTip(listening ? tr("Earshot: listening") : tr("Earshot: idle"));
    m_toggle->setText(listening ? tr("Stop dictation") : tr("Start dictation"));
    m_toggle->setIcon(stateIcon(!listening));
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
