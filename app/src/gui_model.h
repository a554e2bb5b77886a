// The GUI's model helpers: where the built-in micro model is looked for, the no-model message
// that says so, and the model manager's summary of a loaded checkpoint.
#pragma once

#include <QString>
#include <filesystem>
#include <optional>
#include <vector>

#include "earshot/app/loaded_model.h"
#include "earshot/ui/model/model_summary.h"

namespace earshot::app {

// Where the default (micro) model may be, in order: installed beside the executable
// (<exe_dir>/../share/earshot/models/micro), then the source tree's resources/models/micro/model.
std::vector<std::filesystem::path> default_model_candidates();
// The first candidate that holds a checkpoint (a config.json, or a file); empty when none does.
std::optional<std::filesystem::path> default_model_path();

// The no-model text of the main window, plus where the default model was looked for.
QString no_model_message();

// What the model manager shows for `loaded`, read from `modelPath` (and `vocabularyPath`).
ui::ModelSummary model_summary(const LoadedModel& loaded, const QString& modelPath,
                               const QString& vocabularyPath);

}  // namespace earshot::app
