// The language and task checks shared by `transcribe`, `live` and the window's settings.
#include "core/transcription/language_choice.h"

#include "earshot/engine/tokenizer/special_tokens.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

std::string language_code(std::string_view language) {
    if (language == "auto") return "auto";
    return std::string(tokenizer::find_language_code(language));
}

std::string language_task_error(const tokenizer::Tokenizer& tokenizer, std::string_view language,
                                decoding::Task task) {
    const std::string code = language_code(language);
    if (code.empty()) {
        return "unknown language \"" + std::string(language) +
               "\" (a Whisper language code such as en, or its name, or auto)";
    }
    if (!tokenizer.multilingual()) {
        // English-only vocabularies keep the language and task slots, but the model never
        // learned them: openai gives such models the bare SOT sequence (reference section 4.2).
        if (code != "auto" && code != "en") {
            return "this model is English-only: it cannot transcribe " +
                   std::string(tokenizer::language_name(code)) + " (" + code +
                   "); use en or auto, or a multilingual model";
        }
        if (task == decoding::Task::translate) {
            return "this model is English-only: it cannot translate (translate needs a "
                   "multilingual model)";
        }
        return {};
    }
    if (code != "auto" && tokenizer.language_token(code) < 0) {
        return "unknown language \"" + std::string(language) + "\" for this model";
    }
    return {};
}

}  // namespace earshot::app
