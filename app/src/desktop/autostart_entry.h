// The XDG autostart entry that starts Earshot in the tray when the user logs in
// ($XDG_CONFIG_HOME/autostart/earshot.desktop, running `earshot gui --hidden`). Settings' "Start
// with the desktop" writes or removes it; the file itself is the truth, so removing it by hand
// turns the choice off.
#pragma once

#include <QString>

namespace earshot::app {

// $XDG_CONFIG_HOME/autostart/earshot.desktop (~/.config/autostart/earshot.desktop).
QString autostart_entry_path();
bool autostart_entry_exists();
// Writes the entry for `executable` (atomically); the reason when it cannot, empty on success.
QString write_autostart_entry(const QString& executable);
// Removes the entry; the reason when it is there and cannot be removed, empty otherwise.
QString remove_autostart_entry();

}  // namespace earshot::app
