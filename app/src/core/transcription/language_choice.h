// Whether a model can run the language and task asked for: an English-only checkpoint neither
// transcribes other languages nor translates; other codes must have a slot in its vocabulary.
#pragma once

#include <string>
#include <string_view>

#include "earshot/engine/decoding/decoding_options.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

// Why `language` ("auto", a code or a language name) and `task` cannot run with `tokenizer`'s
// model, as one sentence ("this model is English-only: it cannot transcribe french (fr); ...");
// "" when they can.
std::string language_task_error(const tokenizer::Tokenizer& tokenizer, std::string_view language,
                                decoding::Task task);

// The code `language` names (a code or an openai language name, any case); "auto" stays "auto";
// "" when it is neither.
std::string language_code(std::string_view language);

}  // namespace earshot::app
