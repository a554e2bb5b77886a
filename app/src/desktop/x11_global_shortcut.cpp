// X11GlobalShortcut: XGrabKey on the root window for every NumLock/CapsLock variant, errors caught
// synchronously (BadAccess: another client holds it), presses read from the connection's socket.
#include "desktop/x11_global_shortcut.h"

#include <QKeySequence>
#include <QSocketNotifier>
#include <array>
#include <cstdlib>

// Xlib last: its macros (None, KeyPress, Bool, ...) clash with Qt's names.
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>

namespace earshot::app {

namespace {

Display* as_display(void* display) { return static_cast<Display*>(display); }

// The keysym X11 gives the key Qt names; NoSymbol for keys this does not know.
KeySym keysym_for(Qt::Key key) {
    if (key >= Qt::Key_A && key <= Qt::Key_Z) return XK_a + static_cast<KeySym>(key - Qt::Key_A);
    if (key >= Qt::Key_F1 && key <= Qt::Key_F35)
        return XK_F1 + static_cast<KeySym>(key - Qt::Key_F1);
    // Qt's codes for printable ASCII are the characters themselves, as X11's keysyms are.
    if (key >= Qt::Key_Space && key <= Qt::Key_AsciiTilde) return static_cast<KeySym>(key);
    switch (key) {
        case Qt::Key_Escape:
            return XK_Escape;
        case Qt::Key_Tab:
            return XK_Tab;
        case Qt::Key_Backspace:
            return XK_BackSpace;
        case Qt::Key_Return:
            return XK_Return;
        case Qt::Key_Enter:
            return XK_KP_Enter;
        case Qt::Key_Insert:
            return XK_Insert;
        case Qt::Key_Delete:
            return XK_Delete;
        case Qt::Key_Pause:
            return XK_Pause;
        case Qt::Key_Print:
            return XK_Print;
        case Qt::Key_Home:
            return XK_Home;
        case Qt::Key_End:
            return XK_End;
        case Qt::Key_Left:
            return XK_Left;
        case Qt::Key_Up:
            return XK_Up;
        case Qt::Key_Right:
            return XK_Right;
        case Qt::Key_Down:
            return XK_Down;
        case Qt::Key_PageUp:
            return XK_Page_Up;
        case Qt::Key_PageDown:
            return XK_Page_Down;
        case Qt::Key_ScrollLock:
            return XK_Scroll_Lock;
        case Qt::Key_Menu:
            return XK_Menu;
        default:
            return NoSymbol;
    }
}

unsigned x11_modifiers(Qt::KeyboardModifiers modifiers) {
    unsigned mask = 0;
    if (modifiers & Qt::ShiftModifier) mask |= ShiftMask;
    if (modifiers & Qt::ControlModifier) mask |= ControlMask;
    if (modifiers & Qt::AltModifier) mask |= Mod1Mask;
    if (modifiers & Qt::MetaModifier) mask |= Mod4Mask;
    return mask;
}

// The modifier bit NumLock sets in this keyboard map (usually Mod2); 0 when it has none.
unsigned num_lock_mask(Display* display) {
    const KeyCode num_lock = XKeysymToKeycode(display, XK_Num_Lock);
    XModifierKeymap* map = XGetModifierMapping(display);
    unsigned mask = 0;
    for (int modifier = 0; map != nullptr && modifier < 8 && num_lock != 0; ++modifier) {
        for (int k = 0; k < map->max_keypermod; ++k) {
            if (map->modifiermap[modifier * map->max_keypermod + k] == num_lock) {
                mask = 1U << modifier;
            }
        }
    }
    if (map != nullptr) XFreeModifiermap(map);
    return mask;
}

// Errors of our grab requests, collected while grab() waits for the server's answer.
Display* g_grab_display = nullptr;
int g_grab_error = 0;
XErrorHandler g_previous_handler = nullptr;

int record_grab_error(Display* display, XErrorEvent* error) {
    if (display == g_grab_display) {
        if (g_grab_error == 0) g_grab_error = error->error_code;
        return 0;
    }
    return g_previous_handler != nullptr ? g_previous_handler(display, error) : 0;
}

}  // namespace

X11GlobalShortcut::X11GlobalShortcut(QObject* parent) : QObject(parent) {}

X11GlobalShortcut::~X11GlobalShortcut() {
    release();
    delete m_notifier;
    if (m_display != nullptr) XCloseDisplay(as_display(m_display));
}

void X11GlobalShortcut::release() {
    if (m_keycode == 0) return;
    Display* display = as_display(m_display);
    const Window root = DefaultRootWindow(display);
    for (unsigned extra :
         {0U, static_cast<unsigned>(LockMask), m_numLockMask, m_numLockMask | LockMask}) {
        XUngrabKey(display, static_cast<int>(m_keycode), m_modifiers | extra, root);
    }
    XSync(display, False);
    m_keycode = 0;
    m_pressed = false;
}

QString X11GlobalShortcut::setShortcut(const QString& keys) {
    release();
    m_keys = keys.trimmed();
    if (m_keys.isEmpty()) return {};
    const QKeySequence sequence = QKeySequence::fromString(m_keys, QKeySequence::PortableText);
    if (sequence.isEmpty()) return tr("\"%1\" is not a key combination.").arg(m_keys);
    const QKeyCombination combination = sequence[0];
    const KeySym symbol = keysym_for(combination.key());
    if (symbol == NoSymbol) {
        return tr("The global shortcut %1 uses a key X11 cannot grab here.").arg(m_keys);
    }
    if (m_display == nullptr) {
        m_display = XOpenDisplay(nullptr);
        if (m_display == nullptr) {
            return tr("The global shortcut %1 needs an X11 display (DISPLAY is unset or cannot "
                      "be opened); bind a desktop shortcut to `earshot toggle` instead.")
                .arg(m_keys);
        }
        // Held keys repeat as presses only (no release in between): one toggle per press.
        XkbSetDetectableAutoRepeat(as_display(m_display), True, nullptr);
        m_notifier = new QSocketNotifier(ConnectionNumber(as_display(m_display)),
                                         QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &X11GlobalShortcut::readEvents);
    }
    Display* display = as_display(m_display);
    const KeyCode keycode = XKeysymToKeycode(display, symbol);
    if (keycode == 0) {
        return tr("The global shortcut %1: the keyboard has no such key.").arg(m_keys);
    }
    const unsigned modifiers = x11_modifiers(combination.keyboardModifiers());
    m_numLockMask = num_lock_mask(display);
    const Window root = DefaultRootWindow(display);

    XSync(display, False);
    g_grab_display = display;
    g_grab_error = 0;
    g_previous_handler = XSetErrorHandler(record_grab_error);
    // The same key with CapsLock and NumLock on: X11 counts them as modifiers.
    for (unsigned extra :
         {0U, static_cast<unsigned>(LockMask), m_numLockMask, m_numLockMask | LockMask}) {
        XGrabKey(display, keycode, modifiers | extra, root, True, GrabModeAsync, GrabModeAsync);
    }
    XSync(display, False);
    XSetErrorHandler(g_previous_handler);
    const int error = g_grab_error;
    g_grab_display = nullptr;

    m_keycode = keycode;
    m_modifiers = modifiers;
    if (error != 0) {
        release();  // the variants that did succeed
        return error == BadAccess
                   ? tr("The global shortcut %1 is taken by another program; choose another in "
                        "Settings.")
                         .arg(m_keys)
                   : tr("The global shortcut %1 could not be grabbed (X11 error %2).")
                         .arg(m_keys)
                         .arg(error);
    }
    readEvents();  // what XSync already read from the socket
    return {};
}

void X11GlobalShortcut::readEvents() {
    if (m_display == nullptr) return;
    Display* display = as_display(m_display);
    while (XPending(display) > 0) {
        XEvent event;
        XNextEvent(display, &event);
        if (m_keycode == 0) continue;
        if (event.type == KeyPress && event.xkey.keycode == m_keycode) {
            if (!m_pressed) {
                m_pressed = true;
                Q_EMIT activated();
            }
        } else if (event.type == KeyRelease && event.xkey.keycode == m_keycode) {
            // Detectable auto-repeat: a held key sends no release until it is let go.
            if (m_pressed) {
                m_pressed = false;
                Q_EMIT released();
            }
        }
    }
}

}  // namespace earshot::app
