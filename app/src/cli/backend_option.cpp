// `--backend`: the option and its parsing.
#include "cli/backend_option.h"

namespace earshot::app {

CLI::Option* add_backend_option(CLI::App& command, std::string& backend) {
    return command
        .add_option("--backend", backend,
                    "auto (CUDA when a GPU is present, else the CPU), cpu or cuda (see `earshot "
                    "gpus`)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
}

backend::BackendChoice backend_choice(const std::string& name) {
    return backend::parse_backend_choice(name).value_or(backend::BackendChoice::automatic);
}

void require_cuda_if_chosen(backend::BackendChoice choice) {
    if (choice == backend::BackendChoice::cuda) (void)backend::cuda_devices();
}

}  // namespace earshot::app
