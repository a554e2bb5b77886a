#include "desktop/shortcut_gesture.h"

namespace earshot::app {

std::optional<ShortcutMode> parse_shortcut_mode(std::string_view text) {
    if (text == "toggle") return ShortcutMode::toggle;
    if (text == "hold") return ShortcutMode::hold;
    if (text == "both") return ShortcutMode::both;
    return std::nullopt;
}

std::string_view shortcut_mode_name(ShortcutMode mode) {
    switch (mode) {
        case ShortcutMode::toggle:
            return "toggle";
        case ShortcutMode::hold:
            return "hold";
        case ShortcutMode::both:
            return "both";
    }
    return "toggle";
}

ShortcutGesture::ShortcutGesture(ShortcutMode mode, std::chrono::milliseconds holdTime)
    : m_mode(mode), m_holdTime(holdTime) {}

void ShortcutGesture::setMode(ShortcutMode mode) {
    m_mode = mode;
    m_down = false;
    m_startedByPress = false;
}

ShortcutAction ShortcutGesture::press(bool running, Clock::time_point now) {
    // A press while already down is a new press: the caller filters auto-repeat, and a portal
    // may not send Deactivated for a shortcut it only activates.
    m_down = true;
    m_pressedAt = now;
    m_startedByPress = false;
    switch (m_mode) {
        case ShortcutMode::toggle:
            return running ? ShortcutAction::stop : ShortcutAction::start;
        case ShortcutMode::hold:
            if (running) return ShortcutAction::none;  // already on: the release stops it
            m_startedByPress = true;
            return ShortcutAction::start;
        case ShortcutMode::both:
            if (running) return ShortcutAction::stop;  // a press while on stops, tap or hold
            m_startedByPress = true;
            return ShortcutAction::start;
    }
    return ShortcutAction::none;
}

ShortcutAction ShortcutGesture::release(bool running, Clock::time_point now) {
    if (!m_down) return ShortcutAction::none;  // a release whose press we never saw
    m_down = false;
    const bool startedByPress = m_startedByPress;
    m_startedByPress = false;
    if (!running) return ShortcutAction::none;
    switch (m_mode) {
        case ShortcutMode::toggle:
            return ShortcutAction::none;
        case ShortcutMode::hold:
            return ShortcutAction::stop;
        case ShortcutMode::both:
            // Held: push-to-talk ends here. Tapped: dictation stays on until the next press.
            return startedByPress && now - m_pressedAt >= m_holdTime ? ShortcutAction::stop
                                                                     : ShortcutAction::none;
    }
    return ShortcutAction::none;
}

}  // namespace earshot::app
