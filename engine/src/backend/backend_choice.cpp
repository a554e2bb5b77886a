// The names of the backend choices, as `--backend` and the settings file spell them.
#include "earshot/engine/backend/backend_choice.h"

namespace earshot::backend {

std::optional<BackendChoice> parse_backend_choice(std::string_view name) {
    if (name == "auto") return BackendChoice::automatic;
    if (name == "cpu") return BackendChoice::cpu;
    if (name == "cuda") return BackendChoice::cuda;
    return std::nullopt;
}

std::string_view backend_choice_name(BackendChoice choice) {
    switch (choice) {
        case BackendChoice::automatic:
            return "auto";
        case BackendChoice::cpu:
            return "cpu";
        case BackendChoice::cuda:
            return "cuda";
    }
    return "auto";
}

}  // namespace earshot::backend
