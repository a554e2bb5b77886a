// What the global shortcut's press and release do in each mode: toggle, hold (push-to-talk) and
// both (a tap toggles, a hold talks), with the press's length measured against the hold time.
#include "desktop/shortcut_gesture.h"

#include <gtest/gtest.h>

#include <chrono>

namespace earshot::app {
namespace {

using namespace std::chrono_literals;
using Clock = ShortcutGesture::Clock;

TEST(ShortcutGesture, ToggleActsOnPressesOnly) {
    ShortcutGesture g(ShortcutMode::toggle);
    const Clock::time_point t0{};
    EXPECT_EQ(g.press(false, t0), ShortcutAction::start);
    EXPECT_EQ(g.release(true, t0 + 2s), ShortcutAction::none);
    EXPECT_EQ(g.press(true, t0 + 3s), ShortcutAction::stop);
    EXPECT_EQ(g.release(false, t0 + 3100ms), ShortcutAction::none);
    // A portal that sends Activated only (no Deactivated) still toggles on every press.
    EXPECT_EQ(g.press(false, t0 + 4s), ShortcutAction::start);
    EXPECT_EQ(g.press(true, t0 + 5s), ShortcutAction::stop);
}

TEST(ShortcutGesture, HoldRunsWhileHeldAndStopsOnRelease) {
    ShortcutGesture g(ShortcutMode::hold);
    const Clock::time_point t0{};
    EXPECT_EQ(g.press(false, t0), ShortcutAction::start);
    // A second press before the release (no Deactivated came) leaves it running.
    EXPECT_EQ(g.press(true, t0 + 20ms), ShortcutAction::none);
    EXPECT_EQ(g.release(true, t0 + 50ms), ShortcutAction::stop);  // even a short hold stops
    // Already running (the Start button): the press leaves it on, the release stops it.
    EXPECT_EQ(g.press(true, t0 + 5s), ShortcutAction::none);
    EXPECT_EQ(g.release(true, t0 + 6s), ShortcutAction::stop);
    // A release after dictation stopped by itself (a file ended) does nothing.
    EXPECT_EQ(g.press(false, t0 + 7s), ShortcutAction::start);
    EXPECT_EQ(g.release(false, t0 + 8s), ShortcutAction::none);
}

TEST(ShortcutGesture, BothTapsToggleAndHoldsTalk) {
    ShortcutGesture g(ShortcutMode::both, 400ms);
    const Clock::time_point t0{};
    // A tap (shorter than the hold time) starts and leaves dictation on.
    EXPECT_EQ(g.press(false, t0), ShortcutAction::start);
    EXPECT_EQ(g.release(true, t0 + 399ms), ShortcutAction::none);
    // The next press stops it; its release does nothing.
    EXPECT_EQ(g.press(true, t0 + 5s), ShortcutAction::stop);
    EXPECT_EQ(g.release(false, t0 + 6s), ShortcutAction::none);
    // A hold (the hold time or longer) talks until it is let go.
    EXPECT_EQ(g.press(false, t0 + 10s), ShortcutAction::start);
    EXPECT_EQ(g.release(true, t0 + 10400ms), ShortcutAction::stop);
}

TEST(ShortcutGesture, AReleaseWithoutItsPressIsIgnored) {
    ShortcutGesture g(ShortcutMode::hold);
    EXPECT_EQ(g.release(true, Clock::time_point{}), ShortcutAction::none);
    // Changing the mode mid-press forgets the press.
    EXPECT_EQ(g.press(false, Clock::time_point{}), ShortcutAction::start);
    g.setMode(ShortcutMode::toggle);
    EXPECT_EQ(g.release(true, Clock::time_point{} + 1s), ShortcutAction::none);
}

TEST(ShortcutGesture, ModeNamesRoundTrip) {
    for (ShortcutMode mode : {ShortcutMode::toggle, ShortcutMode::hold, ShortcutMode::both}) {
        EXPECT_EQ(parse_shortcut_mode(shortcut_mode_name(mode)), mode);
    }
    EXPECT_FALSE(parse_shortcut_mode("push").has_value());
    EXPECT_FALSE(parse_shortcut_mode("").has_value());
}

}  // namespace
}  // namespace earshot::app
