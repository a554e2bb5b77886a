// `earshot models list | pull NAME | rm NAME | path NAME | quantize IN OUT --type T`: the catalog,
// what is installed in the models folder, downloads from the hub, removal, where a model lives, and
// whisper.cpp quantized copies (model_quantize.h).
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include "cli/command_registry.h"
#include "cli/model_quantize.h"
#include "core/models/model_catalog.h"
#include "core/models/model_download.h"
#include "core/models/model_store.h"
#include "earshot/app/commands.h"

namespace earshot::app {
namespace {

constexpr int kExitDownloadFailed = 1;
constexpr int kExitInterrupted = 130;  // Ctrl-C, as shells report SIGINT (128 + 2)
constexpr double kCliProgressIntervalSeconds = 0.5;

// Which of models' subcommands was given: recorded while parsing, because the command runs
// after the parser (and the subcommands it owns) is gone.
enum class ModelsAction { none, list, pull, rm, path, quantize };

struct ModelsRequest {
    ModelsAction action = ModelsAction::none;
    std::string name;
    std::string hub;
    int stall_seconds = 30;
    QuantizeRequest quantize;
};

std::atomic<bool>& pull_cancelled() {
    static std::atomic<bool> flag{false};
    return flag;
}

extern "C" void on_pull_interrupt(int /*signal*/) { pull_cancelled().store(true); }

// While alive: Ctrl-C cancels the download (its .part stays), and a file-size limit (ulimit -f)
// makes write() fail with EFBIG, reported like a full disk, instead of killing the process.
class PullSignals {
public:
    PullSignals() {
        pull_cancelled().store(false);
        struct sigaction action {};
        action.sa_handler = on_pull_interrupt;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previous_int_);
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGXFSZ, &ignore, &previous_xfsz_);
    }
    ~PullSignals() {
        sigaction(SIGINT, &previous_int_, nullptr);
        sigaction(SIGXFSZ, &previous_xfsz_, nullptr);
    }
    PullSignals(const PullSignals&) = delete;
    PullSignals& operator=(const PullSignals&) = delete;

private:
    struct sigaction previous_int_ {};
    struct sigaction previous_xfsz_ {};
};

std::string approx(int64_t bytes, bool approximate) {
    if (bytes <= 0) return "?";
    return (approximate ? "~" : "") + format_bytes(bytes);
}

std::string state_text(const std::filesystem::path& models, const CatalogEntry& entry) {
    switch (install_state(models, entry)) {
        case InstallState::installed:
            return "installed (" + format_bytes(bytes_on_disk(model_folder(models, entry))) + ")";
        case InstallState::partial:
            return "partial (" + format_bytes(bytes_on_disk(model_folder(models, entry))) +
                   "; pull resumes)";
        case InstallState::absent:
            break;
    }
    return "-";
}

int run_list(std::ostream& out, std::ostream& err) {
    std::vector<CatalogEntry> catalog;
    try {
        catalog = model_catalog();
    } catch (const CatalogError& e) {
        err << "earshot models: " << e.what() << "\n";
        return kExitBadInput;
    }
    const std::filesystem::path models = models_dir();
    out << "Models folder: " << models.string() << "\n";
    out << std::left << std::setw(30) << "NAME" << std::setw(6) << "FORM" << std::setw(12)
        << "DOWNLOAD" << std::setw(12) << "MEMORY" << std::setw(15) << "LANGUAGES"
        << "STATE\n";
    for (const CatalogEntry& entry : catalog) {
        out << std::left << std::setw(30) << entry.name << std::setw(6)
            << model_form_name(entry.form) << std::setw(12)
            << approx(entry.download_bytes(), entry.sizes_approximate) << std::setw(12)
            << approx(entry.memory_bytes, true) << std::setw(15) << entry.languages
            << state_text(models, entry) << "\n";
    }
    bool header = false;
    for (const std::string& folder : model_folders(models)) {
        if (find_catalog_entry(catalog, folder) != nullptr) continue;
        if (!header) out << "Also in the models folder:\n";
        header = true;
        out << "  " << folder << " (" << format_bytes(bytes_on_disk(models / folder)) << ")\n";
    }
    return kExitOk;
}

std::string progress_line(const DownloadProgress& p) {
    std::ostringstream line;
    line << p.file;
    if (p.file_count > 1) line << " [" << p.file_index + 1 << "/" << p.file_count << "]";
    if (p.verifying) {
        line << "  checking its hash";
        return line.str();
    }
    line << "  " << format_bytes(p.received_bytes);
    if (p.total_bytes > 0) line << " of " << format_bytes(p.total_bytes);
    if (p.rate_bytes_per_second > 0.0) {
        line << "  " << format_bytes(static_cast<int64_t>(p.rate_bytes_per_second)) << "/s";
    }
    if (p.seconds_left >= 0.0)
        line << "  " << static_cast<int64_t>(p.seconds_left + 0.5) << " s left";
    return line.str();
}

int run_pull(const ModelsRequest& r, std::ostream& out, std::ostream& err) {
    std::vector<CatalogEntry> catalog;
    try {
        catalog = model_catalog();
    } catch (const CatalogError& e) {
        err << "earshot models pull: " << e.what() << "\n";
        return kExitBadInput;
    }
    const CatalogEntry* entry = find_catalog_entry(catalog, r.name);
    if (entry == nullptr) {
        err << "earshot models pull: no model called \"" << r.name
            << "\" in the catalog (see `earshot models list`)\n";
        return kExitBadInput;
    }
    const std::filesystem::path models = models_dir();
    if (install_state(models, *entry) == InstallState::installed) {
        err << "earshot models pull: " << r.name << " is already installed\n";
        out << model_location(models, *entry).string() << "\n";
        return kExitOk;
    }
    const PullSignals signals;
    DownloadOptions options;
    options.hub = hub_url(r.hub);
    options.stall_seconds = r.stall_seconds;
    options.cancel = &pull_cancelled();
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    auto width = std::make_shared<size_t>(0);
    options.on_progress = [&err, last, width](const DownloadProgress& p) {
        const auto now = std::chrono::steady_clock::now();
        if (!p.verifying && p.received_bytes > 0 &&
            std::chrono::duration<double>(now - *last).count() < kCliProgressIntervalSeconds) {
            return;
        }
        *last = now;
        std::string line = progress_line(p);
        const size_t shown = line.size();
        if (line.size() < *width) line.append(*width - line.size(), ' ');
        *width = shown;
        err << "\r" << line << std::flush;
    };
    err << "Pulling " << r.name << " from " << resolve_url(options.hub, entry->repo, "") << "\n";
    const DownloadResult result = download_model(*entry, models, options);
    err << "\n";
    if (!result.ok()) {
        err << "earshot models pull: " << r.name << ": " << result.message << "\n";
        return result.failure == DownloadFailure::cancelled ? kExitInterrupted
                                                            : kExitDownloadFailed;
    }
    err << "Installed " << r.name << " ("
        << format_bytes(bytes_on_disk(model_folder(models, *entry))) << ")\n";
    out << result.location.string() << "\n";
    return kExitOk;
}

int run_rm(const ModelsRequest& r, std::ostream& out, std::ostream& err) {
    const std::filesystem::path models = models_dir();
    if (!remove_model(models, r.name)) {
        err << "earshot models rm: " << r.name << " is not in " << models.string() << "\n";
        return kExitBadInput;
    }
    out << "Removed " << (models / r.name).string() << "\n";
    return kExitOk;
}

int run_path(const ModelsRequest& r, std::ostream& out, std::ostream& err) {
    std::vector<CatalogEntry> catalog;
    try {
        catalog = model_catalog();
    } catch (const CatalogError& e) {
        err << "earshot models path: " << e.what() << "\n";
        return kExitBadInput;
    }
    const std::filesystem::path models = models_dir();
    if (const CatalogEntry* entry = find_catalog_entry(catalog, r.name)) {
        if (install_state(models, *entry) != InstallState::installed) {
            err << "earshot models path: " << r.name << " is not installed; run `earshot models "
                << "pull " << r.name << "`\n";
            return kExitBadInput;
        }
        out << model_location(models, *entry).string() << "\n";
        return kExitOk;
    }
    std::error_code error;
    if (std::filesystem::is_directory(models / r.name, error)) {
        out << (models / r.name).string() << "\n";
        return kExitOk;
    }
    err << "earshot models path: no model called \"" << r.name << "\" (see `earshot models "
        << "list`)\n";
    return kExitBadInput;
}

}  // namespace

ExtraCommand add_models(CLI::App& root) {
    auto request = std::make_shared<ModelsRequest>();
    CLI::App* models = root.add_subcommand(
        "models", "The model catalog: list, pull (download from the hub), rm, path, quantize");
    models->require_subcommand(1);
    CLI::App* list =
        models->add_subcommand("list", "The catalog and what is installed, with sizes");
    CLI::App* pull = models->add_subcommand(
        "pull", "Download a model into the models folder (Ctrl-C keeps a .part that pull resumes)");
    pull->add_option("name", request->name, "Catalog name (see `earshot models list`)")->required();
    pull->add_option("--hub", request->hub,
                     "Hub URL (default: EARSHOT_HUB_URL, HF_ENDPOINT, https://huggingface.co)");
    pull->add_option("--stall-timeout", request->stall_seconds,
                     "Seconds without data before the server counts as stalled")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    CLI::App* rm = models->add_subcommand("rm", "Remove an installed model");
    rm->add_option("name", request->name, "Model name")->required();
    CLI::App* path = models->add_subcommand("path", "Print where an installed model is");
    path->add_option("name", request->name, "Model name")->required();
    CLI::App* quantize = models->add_subcommand(
        "quantize", "Write a whisper.cpp ggml copy of a checkpoint with its weights quantized");
    quantize->add_option("input", request->quantize.input, "Checkpoint (HF folder or ggml file)")
        ->required();
    quantize->add_option("output", request->quantize.output, "ggml file to write")->required();
    quantize
        ->add_option("--type", request->quantize.type,
                     "q8_0, q5_1, q5_0, q4_1, q4_0 (quantized 2-D weights), f16 or f32")
        ->required();
    const auto records = [request](ModelsAction action) {
        return [request, action] { request->action = action; };
    };
    list->callback(records(ModelsAction::list));
    pull->callback(records(ModelsAction::pull));
    rm->callback(records(ModelsAction::rm));
    path->callback(records(ModelsAction::path));
    quantize->callback(records(ModelsAction::quantize));
    return {models, [request](std::ostream& out, std::ostream& err) {
                switch (request->action) {
                    case ModelsAction::list:
                        return run_list(out, err);
                    case ModelsAction::pull:
                        return run_pull(*request, out, err);
                    case ModelsAction::rm:
                        return run_rm(*request, out, err);
                    case ModelsAction::path:
                        return run_path(*request, out, err);
                    case ModelsAction::quantize:
                        return run_models_quantize(request->quantize, out, err);
                    case ModelsAction::none:
                        break;
                }
                return kExitBadInput;
            }};
}

}  // namespace earshot::app
