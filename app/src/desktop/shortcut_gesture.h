// ShortcutGesture: what a global shortcut's press and release do to dictation, in the mode the
// user chose: toggle (each press starts or stops), hold (dictation runs while the key is held;
// the release stops it, and what is queued is still heard and committed), or both (a tap
// toggles, a press held past the hold time talks until it is released). No Qt: the X11 grab and
// the portal feed it the same way, and its tests need no display.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace earshot::app {

enum class ShortcutMode { toggle, hold, both };

// "toggle", "hold", "both"; nullopt for anything else.
std::optional<ShortcutMode> parse_shortcut_mode(std::string_view text);
std::string_view shortcut_mode_name(ShortcutMode mode);

enum class ShortcutAction { none, start, stop };

class ShortcutGesture {
public:
    using Clock = std::chrono::steady_clock;
    // A press held this long or longer is a hold in mode both; shorter, a tap.
    static constexpr std::chrono::milliseconds kDefaultHoldTime{400};

    explicit ShortcutGesture(ShortcutMode mode = ShortcutMode::toggle,
                             std::chrono::milliseconds holdTime = kDefaultHoldTime);
    void setMode(ShortcutMode mode);
    ShortcutMode mode() const { return m_mode; }

    // The key went down (auto-repeat filtered out by the caller; a press without a release
    // before it counts as a new press) / up; `running`: whether
    // dictation runs (or is about to start) now.
    ShortcutAction press(bool running, Clock::time_point now);
    ShortcutAction release(bool running, Clock::time_point now);

private:
    ShortcutMode m_mode;
    std::chrono::milliseconds m_holdTime;
    bool m_down = false;
    bool m_startedByPress = false;  // this press started dictation
    Clock::time_point m_pressedAt{};
};

}  // namespace earshot::app
