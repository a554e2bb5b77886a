// Where Earshot keeps what it stores: one data root ($XDG_DATA_HOME/earshot: the models, the
// session transcript, the Files results) and one config folder ($XDG_CONFIG_HOME/earshot: the
// settings file, the remote-desktop portal's restore token). Earlier releases used Qt's
// organization/application folders (~/.local/share/Earshot/Earshot, ~/.config/Earshot); those
// are legacy_* here, moved by data_migration.h.
#pragma once

#include <filesystem>

namespace earshot::app {

// $XDG_DATA_HOME when it is an absolute path, else $HOME/.local/share (the XDG Base Directory
// default); the temporary folder when HOME is unset too.
std::filesystem::path xdg_data_home();
// $XDG_CONFIG_HOME when it is an absolute path, else $HOME/.config.
std::filesystem::path xdg_config_home();

// <xdg_data_home>/earshot
std::filesystem::path data_root();
// <xdg_config_home>/earshot
std::filesystem::path config_root();
// <config_root>/earshot.conf: the settings (INI, read and written with QSettings by the app).
std::filesystem::path settings_file();

// Before this layout: <xdg_data_home>/Earshot/Earshot (QStandardPaths::AppDataLocation with
// organization and application "Earshot") and <xdg_config_home>/Earshot (QSettings' native file
// Earshot.conf).
std::filesystem::path legacy_data_folder();
std::filesystem::path legacy_config_folder();

}  // namespace earshot::app
