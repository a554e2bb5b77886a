// `earshot debug compare`: the same window through two runs (two backends, two checkpoints of
// one model, or both), every block's output compared: relative L2 and max-abs error, worst first,
// as a table or JSON (backend/block_comparison.h).
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
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
    std::vector<int> threads;
    int64_t budget_mib = backend::kDefaultComparisonBudgetBytes >> 20;
    std::string audio;
    std::string mel;
    std::string tokens;
    bool decoder = false;
    bool json = false;
};

std::string run_label(const std::string& model, const std::string& backend, bool show_model,
                      int threads) {
    std::string label = show_model ? backend + " " + model : backend;
    if (threads > 0) label += " x" + std::to_string(threads);
    return label;
}

// The thread counts of runs A and B (0: the shared pool); a single --threads is both runs'.
std::vector<int> run_threads(const std::vector<int>& given,
                             const std::vector<backend::PlanBackend>& chosen) {
    if (given.size() > 2) throw std::invalid_argument("give at most two --threads");
    const int most = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    for (const int t : given) {
        if (t < 1 || t > most) {
            throw std::invalid_argument("--threads " + std::to_string(t) + ": give 1 to " +
                                        std::to_string(most) + " (this machine's threads)");
        }
    }
    std::vector<int> threads = given;
    if (threads.size() == 1) threads.push_back(threads.front());
    threads.resize(2, 0);
    for (size_t i = 0; i < 2; ++i) {
        if (threads[i] > 0 && chosen[i] == backend::PlanBackend::cuda) {
            throw std::invalid_argument(std::string("--threads is for CPU runs; run ") +
                                        (i == 0 ? "A" : "B") + " is on cuda");
        }
    }
    return threads;
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
        const std::vector<int> threads = run_threads(r.threads, chosen);
        if (r.budget_mib < 1) {
            throw std::invalid_argument("--budget-mib " + std::to_string(r.budget_mib) +
                                        ": give at least 1");
        }
        const std::string model_b = r.models.size() == 2 ? r.models[1] : r.models[0];
        const model::WhisperCheckpoint a = model::load_whisper_checkpoint(r.models[0]);
        std::optional<model::WhisperCheckpoint> b;
        if (r.models.size() == 2) b.emplace(model::load_whisper_checkpoint(model_b));
        const bool two_models = r.models.size() == 2;
        backend::ComparedRun run_a{
            &a, chosen[0],
            run_label(r.models[0], std::string(backend::plan_backend_name(chosen[0])), two_models,
                      threads[0]),
            threads[0]};
        backend::ComparedRun run_b{
            b ? &*b : &a, chosen[1],
            run_label(model_b, std::string(backend::plan_backend_name(chosen[1])), two_models,
                      threads[1]),
            threads[1]};
        if (run_a.label == run_b.label) {
            run_a.label += " (a)";
            run_b.label += " (b)";
        }
        backend::ComparisonRequest request;
        request.mel = model_mel(a, r.audio, r.mel);
        if (r.decoder || !r.tokens.empty()) {
            request.tokens = model_tokens(r.tokens, a.binding.values.dims.at("Vocab"));
        }
        request.budget_bytes = r.budget_mib << 20;
        request.progress = [&err](const std::string& label, int run, int runs) {
            err << "earshot debug compare: running " << label << " (" << run << " of " << runs
                << ")\n";
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
    command->add_option("--threads", request->threads,
                        "CPU threads of run A; a second --threads is run B's (default: the "
                        "shared pool, EARSHOT_CPU_THREADS or one per hardware thread)");
    command->add_option("--budget-mib", request->budget_mib,
                        "Most MiB of block values held at once; past it the blocks are compared "
                        "in several passes, each running both again (default 256)");
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
