// BackendChoice: which backend runs the model, as the user asked for it (`--backend`, Settings).
#pragma once

#include <optional>
#include <string_view>

namespace earshot::backend {

enum class BackendChoice {
    automatic,  // CUDA when it is built and a device is present, else the CPU
    cpu,
    cuda,
};

// "auto", "cpu" or "cuda" (lower case); anything else is nullopt.
std::optional<BackendChoice> parse_backend_choice(std::string_view name);
std::string_view backend_choice_name(BackendChoice choice);

}  // namespace earshot::backend
