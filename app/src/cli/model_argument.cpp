// resolve_model_argument: paths, catalog names, the app's remembered choice and the micro model.
#include "cli/model_argument.h"

#include <QSettings>
#include <system_error>

#include "core/files/data_root.h"
#include "core/models/model_catalog.h"
#include "core/models/model_store.h"
#include "earshot/ui/model/model_summary.h"
#include "gui/models/default_model.h"

namespace earshot::app {

namespace fs = std::filesystem;

ModelArgument resolve_model_argument(const std::string& model, const std::string& vocabulary) {
    std::error_code error;
    ModelArgument argument;
    argument.vocabulary = vocabulary;
    if (!model.empty()) {
        argument.model = model;
        if (fs::exists(model, error)) return argument;
        const std::vector<CatalogEntry> catalog = model_catalog();
        const fs::path models = models_dir();
        if (const CatalogEntry* entry = find_catalog_entry(catalog, model)) {
            if (install_state(models, *entry) != InstallState::installed) {
                throw ModelArgumentError("the model " + model +
                                         " is not installed; run `earshot models pull " + model +
                                         "` first");
            }
            argument.model = model_location(models, *entry);
        } else if (model.find('/') == std::string::npos &&
                   fs::is_directory(models / model, error)) {
            argument.model = models / model;  // a folder put into the models folder by hand
        }
        return argument;
    }
    // The model the app was last told to use (GuiController stores it under "model").
    QSettings store(QString::fromStdString(settings_file().string()), QSettings::IniFormat);
    const ui::ModelChoice chosen = ui::ModelChoice::load(store);
    if (!chosen.modelPath.isEmpty() && fs::exists(chosen.modelPath.toStdString(), error)) {
        argument.model = chosen.modelPath.toStdString();
        if (vocabulary.empty()) argument.vocabulary = chosen.vocabularyPath.toStdString();
        argument.note =
            "no --model given; using the model chosen in the app: " + argument.model.string();
        return argument;
    }
    const std::optional<fs::path> micro = default_model_path();
    if (!micro) {
        throw ModelArgumentError(
            "no --model given, and the embedded micro model is not installed; give --model PATH "
            "or a name from `earshot models list`");
    }
    argument.model = *micro;
    argument.note =
        "no --model given; using the embedded micro model, a demo that understands only "
        "espeak-ng voices saying its ~200 words (real models: `earshot models list`)";
    return argument;
}

}  // namespace earshot::app
