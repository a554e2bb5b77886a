// The `--backend auto|cpu|cuda` option of the commands that run a model, and the lines they print
// when CUDA cannot run: the one-line fallback note of `auto` and the error of `cuda`.
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

// Why CUDA cannot run, with the error's kind: "CUDA is not available (no driver: ...)". Under
// --backend cuda the commands' one-line error is "earshot CMD: --backend cuda: " and this.
std::string cuda_unavailable_reason(const backend::CudaError& error);

// Why `auto` runs on the CPU, in the words make_decoder_model uses:
// "CUDA is not available (no driver: ...); running on the CPU".
std::string cuda_fallback_reason(const backend::CudaError& error);

// Under --backend cuda: throws backend::CudaError at once when no CUDA device can be used (no
// module, driver or device), before a model is read. Nothing for the other choices.
void require_cuda_if_chosen(backend::BackendChoice choice);

}  // namespace earshot::app
