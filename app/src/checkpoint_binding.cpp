// Reading and binding a checkpoint for the command-line commands.
#include "checkpoint_binding.h"

#include <ostream>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::app {

std::optional<model::WhisperBinding> bind_checkpoint(const std::string& path,
                                                     std::string_view command, std::ostream& err) {
    try {
        return model::bind_whisper(checkpoint::read_whisper_config(path));
    } catch (const checkpoint::CheckpointError& e) {
        err << "earshot " << command << ": " << e.what() << "\n";
    } catch (const model::BindingError& e) {
        err << "earshot " << command << ": " << e.what() << "\n";
    } catch (const std::exception& e) {
        err << "earshot " << command << ": " << path << ": " << e.what() << "\n";
    }
    return std::nullopt;
}

}  // namespace earshot::app
