// The GUI's settings turned into the options dictation and file transcription run with.
#pragma once

#include <QString>

#include "earshot/app/live_controller.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/ui/settings/settings.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

// Both throw std::invalid_argument naming the language when the tokenizer has no slot for it.
LiveOptions live_options(const ui::Settings& settings, const QString& device,
                         const tokenizer::Tokenizer& tokenizer);
decoding::TranscribeOptions transcribe_options(const ui::Settings& settings,
                                               const tokenizer::Tokenizer& tokenizer);

// "CPU" for auto and cpu (the only backend built); what the status bar shows.
QString backend_display_name(const ui::Settings& settings);

}  // namespace earshot::app
