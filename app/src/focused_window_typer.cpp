// FocusedWindowTyper: sends dictated text to the application that has the keyboard focus, by
// simulated typing (X11 XTest; Wayland's wtype or ydotool) or through the clipboard and the paste
// shortcut (restoring the clipboard afterwards).
#include "focused_window_typer.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>
#include <string>

#include "x11_keyboard.h"

namespace earshot::app {

namespace {

// The target reads the clipboard when it handles the paste: keep the text there this long.
constexpr int kClipboardRestoreMs = 700;
constexpr int kHelperTimeoutMs = 5000;

}  // namespace

TypingMethod typing_method_from_setting(const QString& value) {
    if (value == QLatin1String("keys")) return TypingMethod::keys;
    if (value == QLatin1String("clipboard")) return TypingMethod::clipboard;
    return TypingMethod::automatic;
}

FocusedWindowTyper::FocusedWindowTyper(QObject* parent)
    : QObject(parent), m_restore(new QTimer(this)) {
    m_restore->setSingleShot(true);
    m_restore->setInterval(kClipboardRestoreMs);
    connect(m_restore, &QTimer::timeout, this, [this] {
        if (!m_clipboardSaved) return;
        QGuiApplication::clipboard()->setText(m_savedClipboard);
        m_clipboardSaved = false;
    });
}

FocusedWindowTyper::~FocusedWindowTyper() = default;

bool FocusedWindowTyper::onX11() const {
    if (QGuiApplication::platformName() == QLatin1String("xcb")) return true;
    return QGuiApplication::platformName() != QLatin1String("wayland") &&
           !qEnvironmentVariableIsEmpty("DISPLAY") &&
           qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

QString FocusedWindowTyper::x11Keyboard(X11Keyboard*& keyboard) {
    if (!m_x11Tried) {
        m_x11Tried = true;
        std::string why;
        m_x11 = X11Keyboard::open(why);
        if (!m_x11) {
            m_x11Error = tr("Typing into other windows needs the X server's XTest extension "
                            "(Debian package libxtst6 on this side): %1")
                             .arg(QString::fromStdString(why));
        }
    }
    keyboard = m_x11.get();
    return m_x11Error;
}

QString FocusedWindowTyper::runHelper(const QStringList& wtypeArgs,
                                      const QStringList& ydotoolArgs) {
    QString program = QStandardPaths::findExecutable(QStringLiteral("wtype"));
    QStringList args = wtypeArgs;
    if (program.isEmpty()) {
        program = QStandardPaths::findExecutable(QStringLiteral("ydotool"));
        args = ydotoolArgs;
    }
    if (program.isEmpty()) {
        return tr(
            "Typing into other windows on Wayland needs wtype or ydotool: install the "
            "Debian package wtype (or ydotool)");
    }
    QProcess helper;
    helper.start(program, args);
    if (!helper.waitForFinished(kHelperTimeoutMs) || helper.exitCode() != 0) {
        return tr("%1 failed: %2")
            .arg(program, QString::fromLocal8Bit(helper.readAllStandardError()).trimmed());
    }
    return {};
}

QString FocusedWindowTyper::sendKeys(const QString& text) {
    if (!onX11()) {
        return runHelper({QStringLiteral("--"), text},
                         {QStringLiteral("type"), QStringLiteral("--"), text});
    }
    X11Keyboard* keyboard = nullptr;
    if (QString error = x11Keyboard(keyboard); !error.isEmpty()) return error;
    std::string why;
    if (!keyboard->type(text.toStdU32String(), why)) return QString::fromStdString(why);
    return {};
}

QString FocusedWindowTyper::sendClipboard(const QString& text) {
    QClipboard* clipboard = QGuiApplication::clipboard();
    if (!m_clipboardSaved) {  // a paste still pending keeps the first saved text
        m_savedClipboard = clipboard->text();
        m_clipboardSaved = true;
    }
    clipboard->setText(text);
    QString error;
    if (onX11()) {
        X11Keyboard* keyboard = nullptr;
        error = x11Keyboard(keyboard);
        if (error.isEmpty()) keyboard->paste_shortcut();
    } else {
        // Ctrl+V: wtype's modifier flags; ydotool's Linux key codes (29 Ctrl, 47 V).
        error = runHelper({QStringLiteral("-M"), QStringLiteral("ctrl"), QStringLiteral("v"),
                           QStringLiteral("-m"), QStringLiteral("ctrl")},
                          {QStringLiteral("key"), QStringLiteral("29:1"), QStringLiteral("47:1"),
                           QStringLiteral("47:0"), QStringLiteral("29:0")});
    }
    m_restore->start();
    return error;
}

QString FocusedWindowTyper::send(const QString& text) {
    if (text.isEmpty()) return {};
    switch (m_method) {
        case TypingMethod::keys:
            return sendKeys(text);
        case TypingMethod::clipboard:
            return sendClipboard(text);
        case TypingMethod::automatic:
            break;
    }
    // Simulated typing where it works; the clipboard when keys cannot be sent (no XTest, or
    // characters the keyboard cannot type).
    const QString error = sendKeys(text);
    return error.isEmpty() ? error : sendClipboard(text);
}

}  // namespace earshot::app
