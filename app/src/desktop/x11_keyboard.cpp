// Simulated key presses on X11 through the XTest extension: text typed into whatever window has
// the keyboard focus, and the paste shortcut.
#include "desktop/x11_keyboard.h"

#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

namespace earshot::app {

namespace {

Display* as_display(void* display) { return static_cast<Display*>(display); }

// X keysyms: Latin-1 characters are their own keysym; other Unicode characters are
// 0x01000000 + code point (X11 keysymdef.h, "Unicode characters").
KeySym keysym_for(char32_t c) {
    if (c == U'\n') return XK_Return;
    if (c == U'\t') return XK_Tab;
    if (c == U'\b') return XK_BackSpace;  // spoken commands taking back typed text
    if ((c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff)) return static_cast<KeySym>(c);
    return static_cast<KeySym>(0x01000000U | c);
}

}  // namespace

std::unique_ptr<X11Keyboard> X11Keyboard::open(std::string& why) {
    Display* display = XOpenDisplay(nullptr);
    if (display == nullptr) {
        why = "cannot open the X display (DISPLAY is not set or not reachable)";
        return nullptr;
    }
    int event_base = 0, error_base = 0, major = 0, minor = 0;
    if (XTestQueryExtension(display, &event_base, &error_base, &major, &minor) == 0) {
        XCloseDisplay(display);
        why = "the X server has no XTest extension";
        return nullptr;
    }
    return std::unique_ptr<X11Keyboard>(new X11Keyboard(display));
}

X11Keyboard::X11Keyboard(void* display) : display_(display) {
    Display* d = as_display(display_);
    int min_keycode = 0, max_keycode = 0;
    XDisplayKeycodes(d, &min_keycode, &max_keycode);
    int per_keycode = 0;
    KeySym* map = XGetKeyboardMapping(d, static_cast<KeyCode>(min_keycode),
                                      max_keycode - min_keycode + 1, &per_keycode);
    if (map == nullptr) return;
    // The highest keycode without any symbol (xdotool's trick for characters not in the layout).
    for (int keycode = max_keycode; keycode >= min_keycode && scratch_keycode_ == 0; --keycode) {
        bool empty = true;
        for (int i = 0; i < per_keycode; ++i) {
            if (map[(keycode - min_keycode) * per_keycode + i] != NoSymbol) empty = false;
        }
        if (empty) scratch_keycode_ = static_cast<unsigned>(keycode);
    }
    XFree(map);
}

X11Keyboard::~X11Keyboard() {
    Display* d = as_display(display_);
    if (scratch_keycode_ != 0) {
        KeySym none = NoSymbol;
        XChangeKeyboardMapping(d, static_cast<int>(scratch_keycode_), 1, &none, 1);
    }
    XCloseDisplay(d);
}

void X11Keyboard::tap(unsigned keycode, bool shifted) {
    Display* d = as_display(display_);
    const unsigned shift = XKeysymToKeycode(d, XK_Shift_L);
    if (shifted) XTestFakeKeyEvent(d, shift, True, CurrentTime);
    XTestFakeKeyEvent(d, keycode, True, CurrentTime);
    XTestFakeKeyEvent(d, keycode, False, CurrentTime);
    if (shifted) XTestFakeKeyEvent(d, shift, False, CurrentTime);
    XSync(d, False);
}

bool X11Keyboard::type(std::u32string_view text, std::string& why) {
    Display* d = as_display(display_);
    for (char32_t c : text) {
        const KeySym keysym = keysym_for(c);
        const KeyCode keycode = XKeysymToKeycode(d, keysym);
        if (keycode != 0) {
            const bool plain = XkbKeycodeToKeysym(d, keycode, 0, 0) == keysym;
            const bool shifted = !plain && XkbKeycodeToKeysym(d, keycode, 0, 1) == keysym;
            if (plain || shifted) {
                tap(keycode, shifted);
                continue;
            }
        }
        if (scratch_keycode_ == 0) {
            why = "the keyboard layout has no key for a character and no spare keycode";
            return false;
        }
        KeySym mapped[2] = {keysym, keysym};
        XChangeKeyboardMapping(d, static_cast<int>(scratch_keycode_), 2, mapped, 1);
        XSync(d, False);
        tap(scratch_keycode_, false);
    }
    return true;
}

void X11Keyboard::paste_shortcut() {
    Display* d = as_display(display_);
    const unsigned control = XKeysymToKeycode(d, XK_Control_L);
    XTestFakeKeyEvent(d, control, True, CurrentTime);
    tap(XKeysymToKeycode(d, XK_v), false);
    XTestFakeKeyEvent(d, control, False, CurrentTime);
    XSync(d, False);
}

}  // namespace earshot::app
