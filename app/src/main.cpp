// The earshot executable: starts the GUI or the command line, as earshot_app decides.
#include <iostream>

#include "core/files/legacy_folders.h"
#include "earshot/app/cli.h"

int main(int argc, char** argv) {
    using earshot::app::LaunchMode;
    // The folders of earlier releases move to $XDG_DATA_HOME/earshot and $XDG_CONFIG_HOME/earshot
    // once, before anything reads the settings.
    for (const std::string& line : earshot::app::move_legacy_folders()) std::cerr << line << "\n";
    const earshot::app::Launch launch = earshot::app::choose_launch(argc, argv);
    switch (launch.mode) {
        case LaunchMode::gui:
            return earshot::app::run_gui(argc, argv, launch.model_path);
        case LaunchMode::cli:
            return earshot::app::run_cli(argc, argv);
        case LaunchMode::usage_error:
            break;
    }
    std::cerr << "earshot: " << launch.error << "\n";
    return earshot::app::kExitBadInput;
}
