// The GUI's settings turned into the options dictation and file transcription run with.
#pragma once

#include <QString>

#include "earshot/core/live_controller.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/ui/settings/settings.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

// The settings' language, task and beam size as a transcription choice (transcription_setup.h).
TranscriptionChoice transcription_choice(const ui::Settings& settings);

// Both throw std::invalid_argument with language_task_error's sentence when the model cannot
// run the language or task (no slot for it, or an English-only model).
LiveOptions live_options(const ui::Settings& settings, const QString& device,
                         const tokenizer::Tokenizer& tokenizer);
decoding::TranscribeOptions transcribe_options(const ui::Settings& settings,
                                               const tokenizer::Tokenizer& tokenizer);

// What the status bar shows: the backend `loaded` actually runs on ("CPU", "CUDA (NVIDIA
// H200)"), or without a model the one the settings ask for ("Automatic", "CPU", "CUDA").
QString backend_display_name(const ui::Settings& settings, const LoadedModel* loaded);

}  // namespace earshot::app
