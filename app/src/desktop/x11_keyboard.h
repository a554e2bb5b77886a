// Simulated key presses on X11 through the XTest extension: text typed into whatever window has
// the keyboard focus, and the paste shortcut. Without Qt (X11's macros stay in the .cpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace earshot::app {

class X11Keyboard {
public:
    // Connects to $DISPLAY; null with `why` set when there is no display or no XTest.
    static std::unique_ptr<X11Keyboard> open(std::string& why);
    ~X11Keyboard();
    X11Keyboard(const X11Keyboard&) = delete;
    X11Keyboard& operator=(const X11Keyboard&) = delete;

    // Types `text` (UTF-32) key by key; a character with no key in the layout is typed through a
    // spare keycode mapped to it for the moment. False with `why` when a character cannot be.
    bool type(std::u32string_view text, std::string& why);
    // Ctrl+V, the paste shortcut of text fields.
    void paste_shortcut();

private:
    explicit X11Keyboard(void* display);
    void tap(unsigned keycode, bool shifted);

    void* display_ = nullptr;       // Display*
    unsigned scratch_keycode_ = 0;  // a keycode with no symbols, remapped for unusual characters
};

}  // namespace earshot::app
