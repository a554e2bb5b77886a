// FocusedWindowTyper: sends dictated text to the application that has the keyboard focus, by
// simulated typing (X11 XTest; on Wayland the desktop portal's remote-desktop keyboard, else wtype
// or ydotool) or through the clipboard and the paste shortcut (restoring the clipboard afterwards).
#include "desktop/focused_window_typer.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QMimeData>
#include <QPointer>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>
#include <functional>
#include <string>
#include <utility>

#include "desktop/portal_keyboard.h"
#include "desktop/portal_request.h"
#include "desktop/x11_keyboard.h"

namespace earshot::app {

namespace {

// The target reads the clipboard when it handles the paste, which a busy application may do
// late: the text stays there until it has been read and this long after (more formats may follow),
// or until kClipboardReadWaitMs passed without a read. Only then does the next piece go or the
// user's clipboard come back, so a slow target never pastes a later piece or the old clipboard.
constexpr int kClipboardRestoreMs = 700;
constexpr int kClipboardReadWaitMs = 5000;
constexpr int kHelperTimeoutMs = 5000;

// Clipboard contents that call `on_read` whenever another application (or Qt) reads them.
class PasteData : public QMimeData {
public:
    explicit PasteData(std::function<void()> on_read) : m_onRead(std::move(on_read)) {}

protected:
    QVariant retrieveData(const QString& mimeType, QMetaType type) const override {
        if (m_onRead) m_onRead();
        return QMimeData::retrieveData(mimeType, type);
    }

private:
    std::function<void()> m_onRead;
};

}  // namespace

TypingMethod typing_method_from_setting(const QString& value) {
    if (value == QLatin1String("keys")) return TypingMethod::keys;
    if (value == QLatin1String("clipboard")) return TypingMethod::clipboard;
    return TypingMethod::automatic;
}

FocusedWindowTyper::FocusedWindowTyper(QObject* parent)
    : QObject(parent), m_restore(new QTimer(this)) {
    m_restore->setSingleShot(true);
    connect(m_restore, &QTimer::timeout, this, [this] {
        m_pasteInFlight = false;
        if (!m_queuedText.isEmpty()) {  // what came while the last paste was pending
            const QString next = std::exchange(m_queuedText, QString());
            const QString error = paste(next);
            if (!error.isEmpty()) Q_EMIT sendFailed(error);
            return;
        }
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

bool FocusedWindowTyper::onWayland() const { return !onX11() && wayland_desktop(); }

PortalKeyboard* FocusedWindowTyper::portalKeyboard() {
    if (m_portal != nullptr || m_portalChecked || m_portalRefused || !onWayland()) {
        return m_portalRefused ? nullptr : m_portal;
    }
    m_portalChecked = true;
    const QDBusConnection bus = m_portalBus.value_or(QDBusConnection::sessionBus());
    if (!portal_on_bus(bus)) return nullptr;
    m_portal = new PortalKeyboard(bus, this);
    connect(m_portal, &PortalKeyboard::failed, this, &FocusedWindowTyper::portalFailed);
    return m_portal;
}

void FocusedWindowTyper::portalFailed(const QString& why, const QString& untyped) {
    const bool first = !m_portalRefused;
    m_portalRefused = true;
    if (untyped.isEmpty()) return;
    // What was waiting for the portal goes the next way.
    QString error = sendKeys(untyped);
    if (!error.isEmpty() && m_method == TypingMethod::automatic) error = sendClipboard(untyped);
    if (!first && error.isEmpty()) return;
    Q_EMIT sendFailed(error.isEmpty() ? tr("%1; typing with %2 instead").arg(why, wayInUse())
                                      : tr("%1; %2").arg(why, error));
}

QString FocusedWindowTyper::wayInUse() {
    const QString clipboard = tr("the clipboard and the paste shortcut");
    if (m_method == TypingMethod::clipboard) return clipboard;
    if (onX11()) return tr("XTest keys");
    if (portalKeyboard() != nullptr) return tr("the desktop portal's remote-desktop keyboard");
    for (const char* helper : {"wtype", "ydotool"}) {
        if (!QStandardPaths::findExecutable(QLatin1String(helper)).isEmpty()) {
            return QLatin1String(helper);
        }
    }
    return m_method == TypingMethod::automatic ? clipboard : tr("nothing (no wtype or ydotool)");
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
        if (PortalKeyboard* portal = portalKeyboard()) {
            portal->type(text);
            return {};
        }
        // Backspaces as keys (wtype -k; ydotool's Linux key code 14, KEY_BACKSPACE in
        // linux/input-event-codes.h), then the text.
        qsizetype erase = 0;
        while (erase < text.size() && text[erase] == QChar(0x08)) ++erase;
        if (erase > 0) {
            QStringList wtypeKeys;
            QStringList ydotoolKeys{QStringLiteral("key")};
            for (qsizetype i = 0; i < erase; ++i) {
                wtypeKeys << QStringLiteral("-k") << QStringLiteral("BackSpace");
                ydotoolKeys << QStringLiteral("14:1") << QStringLiteral("14:0");
            }
            if (QString error = runHelper(wtypeKeys, ydotoolKeys); !error.isEmpty()) return error;
        }
        const QString rest = text.mid(erase);
        if (rest.isEmpty()) return {};
        return runHelper({QStringLiteral("--"), rest},
                         {QStringLiteral("type"), QStringLiteral("--"), rest});
    }
    X11Keyboard* keyboard = nullptr;
    if (QString error = x11Keyboard(keyboard); !error.isEmpty()) return error;
    std::string why;
    if (!keyboard->type(text.toStdU32String(), why)) return QString::fromStdString(why);
    return {};
}

QString FocusedWindowTyper::sendClipboard(const QString& text) {
    if (m_pasteInFlight) {  // one paste at a time: this goes once the target read the last one
        m_queuedText += text;
        return {};
    }
    return paste(text);
}

QString FocusedWindowTyper::paste(const QString& text) {
    QClipboard* clipboard = QGuiApplication::clipboard();
    if (!m_clipboardSaved) {  // a paste still pending keeps the first saved text
        m_savedClipboard = clipboard->text();
        m_clipboardSaved = true;
    }
    QPointer<FocusedWindowTyper> self(this);
    auto* data = new PasteData([self] {
        if (self) self->pasteRead();
    });
    data->setText(text);
    m_pasteRead = false;
    m_pasteInFlight = true;
    clipboard->setMimeData(data);  // the clipboard owns it
    m_pasteRead = false;           // setting it is not a read by the target
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
    m_restore->start(kClipboardReadWaitMs);
    return error;
}

void FocusedWindowTyper::pasteRead() {
    if (!m_pasteInFlight || m_pasteRead) return;
    m_pasteRead = true;
    m_restore->start(kClipboardRestoreMs);
}

QString FocusedWindowTyper::send(const QString& text) {
    if (text.isEmpty()) return {};
    // Leading backspaces (U+0008: spoken commands taking back typed text) are keys on every
    // way: a paste cannot erase.
    qsizetype erase = 0;
    while (erase < text.size() && text[erase] == QChar(0x08)) ++erase;
    if (erase > 0 && m_method != TypingMethod::keys) {
        if (const QString error = sendKeys(text.left(erase)); !error.isEmpty()) return error;
        return send(text.mid(erase));
    }
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
