// Reading and binding a checkpoint for the command-line commands.
#include "core/models/checkpoint_binding.h"

#include <ostream>

#include "cli/model_argument.h"
#include "earshot/engine/checkpoint/errors.h"

namespace earshot::app {

std::optional<model::WhisperBinding> bind_checkpoint(const std::string& path,
                                                     std::string_view command, std::ostream& err) {
    try {
        // As transcribe and live: a path, a catalog name, or nothing (the app's model, else the
        // embedded micro model, said on stderr).
        const ModelArgument model = resolve_model_argument(path, "");
        if (!model.note.empty()) err << "earshot " << command << ": " << model.note << "\n";
        return model::bind_whisper(checkpoint::read_whisper_config(model.model.string()));
    } catch (const ModelArgumentError& e) {
        err << "earshot " << command << ": " << e.what() << "\n";
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
