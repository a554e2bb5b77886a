// ModelRegistry: names to checkpoints, through the core's catalog and models folder.
#include "server/model_registry.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "core/models/model_catalog.h"
#include "core/models/model_store.h"

namespace earshot::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMicroId = "micro";
constexpr const char* kOpenAiModelId = "whisper-1";  // the id OpenAI's own API serves

bool holds_checkpoint(const fs::path& path) {
    std::error_code error;
    if (fs::is_directory(path, error)) return fs::is_regular_file(path / "config.json", error);
    return fs::is_regular_file(path, error);
}

ApiError model_not_found(std::string message) {
    return ApiError{404, std::move(message), "invalid_request_error", "model", "model_not_found"};
}

// A catalog name or a folder in the models folder; an ApiError when it is neither installed.
std::variant<ServedModel, ApiError> find_installed(const std::string& name) {
    const std::vector<app::CatalogEntry> catalog = app::model_catalog();
    const fs::path models = app::models_dir();
    if (const app::CatalogEntry* entry = app::find_catalog_entry(catalog, name)) {
        if (app::install_state(models, *entry) != app::InstallState::installed) {
            return model_not_found("the model " + name +
                                   " is not installed; run `earshot models "
                                   "pull " +
                                   name + "` on the server first");
        }
        return ServedModel{name, app::model_location(models, *entry)};
    }
    std::error_code error;
    if (name.find('/') == std::string::npos && name != "." && name != ".." &&
        fs::is_directory(models / name, error)) {
        return ServedModel{name, models / name};
    }
    return model_not_found("no model named \"" + name +
                           "\" (GET /v1/models lists the ones this server has; `earshot models "
                           "list` the ones it can download)");
}

}  // namespace

fs::path embedded_micro_model() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
        const fs::path installed =
            (exe.parent_path() / ".." / "share" / "earshot" / "models" / "micro")
                .lexically_normal();
        if (holds_checkpoint(installed)) return installed;
    }
#ifdef EARSHOT_SOURCE_MODEL_DIR
    if (holds_checkpoint(EARSHOT_SOURCE_MODEL_DIR)) return fs::path(EARSHOT_SOURCE_MODEL_DIR);
#endif
    return {};
}

ModelRegistry::ModelRegistry(const std::string& default_model) {
    std::error_code error;
    if (default_model.empty()) {
        default_ = ServedModel{kMicroId, embedded_micro_model()};
        if (default_.path.empty()) {
            throw std::runtime_error(
                "no --model given, and the embedded micro model is not "
                "installed; give --model PATH or a name from `earshot "
                "models list`");
        }
    } else if (fs::exists(default_model, error)) {
        const fs::path path = fs::path(default_model).lexically_normal();
        const fs::path named = path.filename().empty() ? path.parent_path() : path;
        std::string id = named.stem().string();
        if (id == "model" && !named.parent_path().filename().empty()) {
            id = named.parent_path().filename().string();  // resources/models/micro/model
        }
        default_ = ServedModel{id, path};
    } else {
        auto found = find_installed(default_model);
        if (auto* refused = std::get_if<ApiError>(&found)) {
            throw std::runtime_error(refused->message);
        }
        default_ = std::get<ServedModel>(found);
    }
}

std::variant<ServedModel, ApiError> ModelRegistry::resolve(const std::string& name) const {
    if (name.empty() || name == kOpenAiModelId || name == default_.id) return default_;
    return find_installed(name);
}

std::vector<ServedModel> ModelRegistry::installed() const {
    std::vector<ServedModel> models{default_};
    for (const std::string& folder : app::model_folders(app::models_dir())) {
        if (folder == default_.id) continue;
        auto found = find_installed(folder);
        if (auto* model = std::get_if<ServedModel>(&found)) models.push_back(*model);
    }
    return models;
}

}  // namespace earshot::server
