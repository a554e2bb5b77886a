// One transcription setup for every front end (`earshot transcribe`, `earshot live`, the Files
// page, dictation in the window): what the user chose, checked against the loaded model, turned
// into the engine's options. The language and task check, the checkpoint's defaults and the
// alignment heads are decided here and nowhere else, so the front ends give the same answer.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/decoding/streaming_transcriber.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

// How a custom vocabulary reaches the decoder.
enum class VocabularyUse {
    automatic,        // the model's way: bias for a checkpoint trained without previous-text
                      //   prompts (generation_config condition_on_prev_tokens false), else prompt
    prompt,           // the entries open every window's <|startofprev|> prompt
    bias,             // their first tokens' logits are raised by vocabulary_logit_bias
    prompt_and_bias,  // both
};

// What a user chose, from flags or from the settings dialog.
struct TranscriptionChoice {
    std::string language = "auto";  // a code, an openai language name (any case) or "auto"
    decoding::Task task = decoding::Task::transcribe;
    // The front end's other decoding choices (beam size, temperatures, timestamps, seed);
    // language, task and the checkpoint's suppressed tokens are filled in by the setup.
    decoding::DecodingOptions decoding;
    bool word_timestamps = false;  // files: time every word (cross-attention alignment)
    // Custom vocabulary (load_vocabulary): entries the decoder should prefer, never shown as
    // text: in every window's <|startofprev|> prompt, or as a bias on their first tokens' logits
    // at every step, or both (`vocabulary_use`).
    std::vector<std::string> vocabulary;
    VocabularyUse vocabulary_use = VocabularyUse::automatic;
    double vocabulary_logit_bias = kVocabularyLogitBias;
    // The bias when one is used, measured on the micro model (README, "Custom vocabulary").
    static constexpr double kVocabularyLogitBias = 2.0;
};

// The choice does not fit the model: one sentence naming what and why. An invalid_argument, as
// the front ends' other refusals of what a user asked for.
class TranscriptionSetupError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// `choice.decoding` with the language and task checked against `tokenizer`'s model (an
// English-only checkpoint neither translates nor transcribes other languages; other codes need a
// slot in the vocabulary). Throws TranscriptionSetupError with language_task_error's sentence.
// With a custom vocabulary: its prompt and bias tokens (a list longer than the prompt's room,
// MaxTokens / 2 - 1 = 223 tokens, is refused with TranscriptionSetupError).
decoding::DecodingOptions decoding_options(const TranscriptionChoice& choice,
                                           const tokenizer::Tokenizer& tokenizer);

// The heads that time words: the checkpoint's alignment heads (generation_config.json), else every
// head of the last half of the decoder (default_alignment_heads). A head the model does not have
// is an error naming it (TranscriptionSetupError), for every front end.
std::vector<backend::AttentionHead> alignment_heads(const LoadedModel& loaded);

// Long-form transcription of files: the checked decoding options, the checkpoint's defaults
// (suppressed tokens, condition_on_prev_tokens) and, with word_timestamps, the alignment heads
// (a backend that returns no cross-attention weights is refused, naming it).
decoding::TranscribeOptions file_transcription_options(const TranscriptionChoice& choice,
                                                       const LoadedModel& loaded);

// Live dictation: `streaming` (the front end's pacing, update interval, VAD) with the checked
// decoding options, the checkpoint's suppressed tokens and the alignment heads that time words.
decoding::StreamingOptions dictation_options(const TranscriptionChoice& choice,
                                             const LoadedModel& loaded,
                                             decoding::StreamingOptions streaming);

// The decoding defaults the checkpoint itself carries: its generation_config.json suppress_tokens
// list, when it has one (the micro model lists every id it never learned, so that neither
// sampling nor the log-probability thresholds see them).
void apply_model_defaults(const LoadedModel& loaded, decoding::DecodingOptions& decoding);
// The same for long-form transcription, and its condition_on_prev_tokens (the micro model was
// trained with unrelated prompts and transcribes long files better without its previous text).
void apply_model_defaults(const LoadedModel& loaded, decoding::TranscribeOptions& options);
// The same for live dictation, and the heads that time its words (alignment_heads(), so it throws
// TranscriptionSetupError for a head the model lacks). Words are aligned when the backend
// returns cross-attention weights (CPU and CUDA do), else estimated.
void apply_model_defaults(const LoadedModel& loaded, decoding::StreamingOptions& streaming);

}  // namespace earshot::app
