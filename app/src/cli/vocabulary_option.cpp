// --vocabulary, --vocabulary-use and --vocabulary-bias.
#include "cli/vocabulary_option.h"

#include "core/transcription/vocabulary_list.h"

namespace earshot::app {

void add_vocabulary_options(CLI::App& command, VocabularyRequest& request) {
    command.add_option("--vocabulary", request.file,
                       "Words to prefer (names, terms, spellings, numbers), one a line; given "
                       "to the decoder, never written out");
    command
        .add_option("--vocabulary-use", request.use,
                    "How --vocabulary reaches the decoder: prompt (Whisper's previous-text "
                    "prompt), bias (on its words' first tokens), both, or auto (bias for a "
                    "model trained without prompts, else prompt)")
        ->check(CLI::IsMember({"auto", "prompt", "bias", "both"}))
        ->capture_default_str();
    command
        .add_option("--vocabulary-bias", request.bias,
                    "Added to the logit of each --vocabulary word's first token at every step, "
                    "when a bias is used")
        ->check(CLI::Range(0.0, 10.0))
        ->capture_default_str();
}

void apply_vocabulary(const VocabularyRequest& request, TranscriptionChoice& choice) {
    if (request.file.empty()) return;
    choice.vocabulary = load_vocabulary(request.file);
    choice.vocabulary_logit_bias = request.bias;
    choice.vocabulary_use = request.use == "prompt" ? VocabularyUse::prompt
                            : request.use == "bias" ? VocabularyUse::bias
                            : request.use == "both" ? VocabularyUse::prompt_and_bias
                                                    : VocabularyUse::automatic;
}

}  // namespace earshot::app
