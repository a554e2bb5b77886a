// Reading a checkpoint's configuration and binding the program's generics, with the one-line
// error every command prints for a missing or malformed model.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "earshot/engine/model/whisper_binding.h"

namespace earshot::app {

// Prints `earshot <command>: <reason>` on `err` and returns nullopt when the checkpoint cannot
// be read or bound.
std::optional<model::WhisperBinding> bind_checkpoint(const std::string& path,
                                                     std::string_view command, std::ostream& err);

}  // namespace earshot::app
