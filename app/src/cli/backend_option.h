// The `--backend auto|cpu|cuda` option of the commands that run a model. Under --backend cuda
// their one-line error is "earshot CMD: --backend cuda: " + backend::cuda_unavailable_reason.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "earshot/engine/backend/backend_choice.h"
#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::app {

// Declares `--backend` on `command`, bound to `backend` (default "auto"; CLI11 checks the name).
CLI::Option* add_backend_option(CLI::App& command, std::string& backend);

// The choice `name` spells; the option's check has already refused anything else.
backend::BackendChoice backend_choice(const std::string& name);

// Under --backend cuda: throws backend::CudaError at once when no CUDA device can be used (no
// module, driver or device), before a model is read. Nothing for the other choices.
void require_cuda_if_chosen(backend::BackendChoice choice);

}  // namespace earshot::app
