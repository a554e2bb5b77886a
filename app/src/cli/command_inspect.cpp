// `earshot inspect --model PATH`: the program's entries, the generics this checkpoint binds and
// every block, in the layout of the model's block program.
#include <ostream>

#include "core/models/checkpoint_binding.h"
#include "earshot/app/commands.h"
#include "earshot/engine/model/whisper_model.h"

namespace earshot::app {

int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err) {
    auto binding = bind_checkpoint(options.model_path, "inspect", err);
    if (!binding) return kExitBadInput;
    const auto& config = binding->config;
    out << "Checkpoint\t" << config.source.string() << "\n"
        << "Format\t" << checkpoint::format_name(config.format) << "\n"
        << "T from\t" << config.dtype_source << "\n\n"
        << program::inspect_report(model::WhisperModel::declaration(), model::whisper_blocks(),
                                   binding->generics)
        << "\n";
    return kExitOk;
}

}  // namespace earshot::app
