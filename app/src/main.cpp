// The earshot executable: starts the GUI or the command line, as earshot_app decides.
#include <iostream>

#include "earshot/app/cli.h"

int main(int argc, char** argv) {
    using earshot::app::LaunchMode;
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
