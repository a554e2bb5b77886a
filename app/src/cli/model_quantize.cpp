// The `models quantize` command: checks the type and the output folder first, converts with the
// engine's quantize_checkpoint_to_ggml, then writes the bytes with write_file_atomically.
#include "cli/model_quantize.h"

#include <exception>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "core/files/atomic_file.h"
#include "earshot/app/commands.h"
#include "earshot/audio/mel_filterbank.h"
#include "earshot/engine/convert/ggml_quantize_checkpoint.h"

namespace earshot::app {
namespace {

// openai's mel_filters.npz rows for `mels` bands: what whisper.cpp reads from the file.
std::vector<float> whisper_mel_filters(int mels) {
    const audio::MelFilterbank bank(mels);
    const auto weights = bank.weights_f32();
    return {weights.begin(), weights.end()};
}

}  // namespace

int run_models_quantize(const QuantizeRequest& request, std::ostream& out, std::ostream& err) {
    const std::optional<checkpoint::GgmlType> type =
        convert::ggml_file_type_from_name(request.type);
    if (!type) {
        err << "models quantize: unknown type \"" << request.type << "\" (use one of "
            << convert::ggml_file_type_names() << ")\n";
        return kExitBadInput;
    }
    const std::filesystem::path output(request.output);
    const std::filesystem::path folder =
        output.has_parent_path() ? output.parent_path() : std::filesystem::path(".");
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error)) {
        err << "models quantize: cannot write " << output.string() << ": " << folder.string()
            << " is not a folder\n";
        return kExitBadInput;
    }
    std::ostringstream bytes(std::ios::binary);
    try {
        convert::quantize_checkpoint_to_ggml(request.input, *type, whisper_mel_filters, bytes,
                                             [&](const convert::GgmlQuantizeProgress& p) {
                                                 err << "[" << p.tensor_index + 1 << "/"
                                                     << p.tensor_count << "] " << p.name << " "
                                                     << checkpoint::ggml_type_name(p.type) << "\n";
                                             });
    } catch (const std::exception& e) {
        err << "models quantize: " << e.what() << "\n";
        return kExitBadInput;
    }
    const std::string written = std::move(bytes).str();
    try {
        write_file_atomically(output, written);
    } catch (const std::exception& e) {
        err << "models quantize: " << e.what() << "\n";
        return kExitBadInput;
    }
    out << "Wrote " << output.string() << " (" << request.type << ", " << written.size()
        << " bytes)\n";
    return kExitOk;
}

}  // namespace earshot::app
