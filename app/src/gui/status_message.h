// How long a passing message stays in the main window's status bar (a lasting one, like a
// failure the user must read, is shown without a timeout).
#pragma once

namespace earshot::app {

inline constexpr int kStatusMessageMs = 8000;

}  // namespace earshot::app
