// `earshot debug plan`: the plan an entry runs as the chosen backend executes it (its kernels in
// order with scope, shapes, bytes and FLOPs, then a TOTAL line), read from the checkpoint's
// config alone, so that a model nobody has downloaded (a config.json) can be planned here.
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include "cli/command_registry.h"
#include "core/models/checkpoint_binding.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/plan_listing.h"

namespace earshot::app {
namespace {

struct Request {
    std::string model;
    std::string entry = "step";
    std::string backend = "cpu";
    int64_t rows = 1;
    int64_t tokens = 4;
};

int run_plan(const Request& r, std::ostream& out, std::ostream& err) {
    const std::optional<backend::PlanBackend> chosen = backend::parse_plan_backend(r.backend);
    if (!chosen) {
        err << "earshot debug plan: --backend must be cpu or cuda, got \"" << r.backend << "\"\n";
        return kExitBadInput;
    }
    // The default model is the one transcribe and live take (said on stderr). Entry, rows and
    // tokens are checked by the listing (PlanListingError), after the model is bound.
    const auto binding = bind_checkpoint(r.model, "debug plan", err);
    if (!binding) return kExitBadInput;
    backend::PlanListingRequest request;
    request.entry = r.entry;
    request.backend = *chosen;
    request.rows = r.rows;
    request.tokens = r.tokens;
    try {
        out << backend::plan_listing_text(backend::list_plan(*binding, request));
    } catch (const backend::PlanListingError& e) {
        err << "earshot debug plan: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::invalid_argument& e) {
        // A setting from the environment the backend refuses (EARSHOT_CUDA_OLD_KERNELS=gemm).
        err << "earshot debug plan: " << e.what() << "\n";
        return kExitBadInput;
    }
    return kExitOk;
}

}  // namespace

ExtraCommand add_debug_plan(CLI::App& root) {
    auto request = std::make_shared<Request>();
    CLI::App* command = debug_group(root).add_subcommand(
        "plan",
        "Print an entry's plan as a backend runs it: every kernel in order with its scope, shapes, "
        "bytes read and written and FLOPs, then TOTAL: N kernels, R MiB read, W MiB written, F "
        "GFLOP. Needs only the checkpoint's config (a folder holding a config.json will do)");
    command->add_option("--model", request->model,
                        "HF model directory (config.json alone is enough), model.safetensors, "
                        "whisper.cpp ggml .bin or a name from `earshot models list`; default: the "
                        "model chosen in the app, else the micro demo model");
    command->add_option("--entry", request->entry, "Entry to list: step, prefill, listen or encode")
        ->capture_default_str();
    command->add_option("--backend", request->backend, "Backend whose kernels to list: cpu or cuda")
        ->capture_default_str();
    command->add_option("--rows", request->rows, "Batch rows (a beam of 5: 5; encode: B)")
        ->capture_default_str();
    command->add_option("--tokens", request->tokens, "Tokens a prefill takes (its S)")
        ->capture_default_str();
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_plan(*request, out, err);
            }};
}

}  // namespace earshot::app
