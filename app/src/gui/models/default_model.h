// The GUI's model helpers: where the built-in micro model is looked for, the no-model message
// that says so, and the model manager's summary of a loaded checkpoint.
#pragma once

#include <QString>
#include <filesystem>
#include <optional>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/ui/model/model_summary.h"

namespace earshot::app {

// Where the default (micro) model may be, in order: installed beside the executable
// (<exe_dir>/../share/earshot/models/micro), then the source tree's resources/models/micro/model.
std::vector<std::filesystem::path> default_model_candidates();
// The first candidate that holds a checkpoint (a config.json, or a file); empty when none does.
std::optional<std::filesystem::path> default_model_path();

// The no-model text of the main window, plus where the default model was looked for.
QString no_model_message();

// Whether `path` is the built-in micro model (one of default_model_candidates()).
bool is_micro_model(const std::filesystem::path& path);

// What a checkpoint is: openai's size name when its dims are one ("Whisper base.en", "Whisper
// large-v3"), else its shape ("Whisper-shaped: D 64, 2 + 2 layers, English-only").
QString whisper_kind(const checkpoint::WhisperConfig& config);

// What the model manager shows for `loaded`, read from `modelPath` (and `vocabularyPath`): its
// name says what it is; the micro model's note says what it can hear.
ui::ModelSummary model_summary(const LoadedModel& loaded, const QString& modelPath,
                               const QString& vocabularyPath);

}  // namespace earshot::app
