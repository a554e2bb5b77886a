// `earshot debug compare`: the same window through two runs (two backends, two checkpoints of
// one model, or both), every block's output compared: relative L2 and max-abs error, worst first,
// as a table or JSON (backend/block_comparison.h).
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/backend_option.h"
#include "cli/command_registry.h"
#include "cli/debug/debug_model_input.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/block_comparison.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::app {
namespace {

struct CompareRequest {
    std::vector<std::string> models;
    std::vector<std::string> backends;
    std::string audio;
    std::string mel;
    std::string tokens;
    bool decoder = false;
    bool json = false;
};

std::string run_label(const std::string& model, const std::string& backend, bool show_model) {
    return show_model ? backend + " " + model : backend;
}

int run_debug_compare(const CompareRequest& r, std::ostream& out, std::ostream& err) {
    try {
        if (r.models.empty() || r.models.size() > 2) {
            throw std::invalid_argument("give one or two --model");
        }
        if (r.backends.size() > 2) throw std::invalid_argument("give at most two --backend");
        if (r.audio.empty() == r.mel.empty()) {
            throw std::invalid_argument("give one of --audio FILE and --mel X.npy");
        }
        std::vector<backend::PlanBackend> chosen;
        for (const std::string& name : r.backends) chosen.push_back(backend_named(name));
        if (chosen.empty()) chosen.push_back(backend::PlanBackend::cpu);
        if (chosen.size() == 1) chosen.push_back(chosen.front());
        for (backend::PlanBackend b : chosen) {
            if (b != backend::PlanBackend::cuda) continue;
            try {
                require_cuda_if_chosen(backend::BackendChoice::cuda);
            } catch (const backend::CudaError& e) {
                throw std::runtime_error("--backend cuda: " + backend::cuda_unavailable_reason(e));
            }
        }
        const std::string model_b = r.models.size() == 2 ? r.models[1] : r.models[0];
        const model::WhisperCheckpoint a = model::load_whisper_checkpoint(r.models[0]);
        std::optional<model::WhisperCheckpoint> b;
        if (r.models.size() == 2) b.emplace(model::load_whisper_checkpoint(model_b));
        const bool two_models = r.models.size() == 2;
        backend::ComparedRun run_a{
            &a, chosen[0],
            run_label(r.models[0], std::string(backend::plan_backend_name(chosen[0])), two_models)};
        backend::ComparedRun run_b{
            b ? &*b : &a, chosen[1],
            run_label(model_b, std::string(backend::plan_backend_name(chosen[1])), two_models)};
        if (run_a.label == run_b.label) {
            run_a.label += " (a)";
            run_b.label += " (b)";
        }
        backend::ComparisonRequest request;
        request.mel = model_mel(a, r.audio, r.mel);
        if (r.decoder || !r.tokens.empty()) {
            request.tokens = model_tokens(r.tokens, a.binding.values.dims.at("Vocab"));
        }
        request.progress = [&err](const std::string& label) {
            err << "earshot debug compare: running " << label << "\n";
        };
        const backend::BlockComparison comparison = backend::compare_blocks(run_a, run_b, request);
        out << (r.json ? backend::comparison_json(comparison)
                       : backend::comparison_text(comparison));
        return kExitOk;
    } catch (const std::exception& e) {
        err << "earshot debug compare: " << e.what() << "\n";
        return kExitBadInput;
    }
}

}  // namespace

ExtraCommand add_debug_compare(CLI::App& root) {
    auto request = std::make_shared<CompareRequest>();
    CLI::App* command = debug_group(root).add_subcommand(
        "compare",
        "Run one window through two models or backends and print every block output's relative "
        "error (relative L2 and max-abs), worst first");
    command->add_option("--model", request->models, "Checkpoint; a second --model is run B")
        ->required();
    command->add_option("--backend", request->backends,
                        "cpu or cuda; a second --backend is run B's (default: cpu, or as run A)");
    command->add_option("--audio", request->audio, "Audio file: its first window is heard");
    command->add_option("--mel", request->mel, "float32 [Mels, Frames] log-mel .npy");
    command->add_flag("--decoder", request->decoder,
                      "Compare listen and the decoder's prefill too, not only the encoder");
    command->add_option("--tokens", request->tokens,
                        "Prefill ids for the decoder comparison (implies --decoder)");
    command->add_flag("--json", request->json, "Print JSON instead of the table");
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_debug_compare(*request, out, err);
            }};
}

}  // namespace earshot::app
