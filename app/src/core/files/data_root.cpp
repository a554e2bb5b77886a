// The XDG folders Earshot stores in, and the folders earlier releases used.
#include "core/files/data_root.h"

#include <cstdlib>

namespace earshot::app {

namespace fs = std::filesystem;

namespace {

fs::path home_or_temp() {
    const char* home = std::getenv("HOME");
    return home != nullptr && *home != 0 ? fs::path(home) : fs::temp_directory_path();
}

// The XDG variable when it holds an absolute path (the specification ignores relative ones),
// else `fallback` under the home folder.
fs::path xdg_folder(const char* variable, const char* fallback) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value == '/') return fs::path(value);
    return home_or_temp() / fallback;
}

}  // namespace

fs::path xdg_data_home() { return xdg_folder("XDG_DATA_HOME", ".local/share"); }
fs::path xdg_config_home() { return xdg_folder("XDG_CONFIG_HOME", ".config"); }

fs::path data_root() { return xdg_data_home() / "earshot"; }
fs::path config_root() { return xdg_config_home() / "earshot"; }
fs::path settings_file() { return config_root() / "earshot.conf"; }

fs::path legacy_data_folder() { return xdg_data_home() / "Earshot" / "Earshot"; }
fs::path legacy_config_folder() { return xdg_config_home() / "Earshot"; }

}  // namespace earshot::app
