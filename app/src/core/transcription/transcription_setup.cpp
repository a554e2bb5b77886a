// The choice -> the engine's options, checked against the model; the checkpoint's defaults.
#include "earshot/core/transcription_setup.h"

#include <string>
#include <utility>

#include "core/transcription/language_choice.h"
#include "core/transcription/vocabulary_list.h"
#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

decoding::DecodingOptions decoding_options(const TranscriptionChoice& choice,
                                           const tokenizer::Tokenizer& tokenizer) {
    decoding::DecodingOptions decoding = choice.decoding;
    decoding.task = choice.task;
    const std::string language = choice.language.empty() ? "auto" : choice.language;
    const std::string refused = language_task_error(tokenizer, language, choice.task);
    if (!refused.empty()) throw TranscriptionSetupError(refused);
    decoding.language = language == "auto" ? std::string() : language_code(language);
    if (!choice.vocabulary.empty()) {
        // automatic: the prompt until apply_vocabulary_use() knows the model.
        const VocabularyUse use = choice.vocabulary_use;
        decoding.vocabulary_tokens = vocabulary_prompt_tokens(choice.vocabulary, tokenizer);
        // Whisper's prompt holds n_text_ctx / 2 - 1 tokens (reference §5.6).
        constexpr size_t kPromptRoomTokens = 448 / 2 - 1;
        if (decoding.vocabulary_tokens.size() > kPromptRoomTokens) {
            throw TranscriptionSetupError(
                "the vocabulary takes " + std::to_string(decoding.vocabulary_tokens.size()) +
                " tokens; the decoder's prompt holds " + std::to_string(kPromptRoomTokens));
        }
        if (use == VocabularyUse::bias || use == VocabularyUse::prompt_and_bias) {
            decoding.vocabulary_logit_bias = choice.vocabulary_logit_bias;
            decoding.vocabulary_first_tokens =
                vocabulary_first_tokens(choice.vocabulary, tokenizer);
        }
        if (use == VocabularyUse::bias) decoding.vocabulary_tokens.clear();
    }
    return decoding;
}

std::vector<backend::AttentionHead> alignment_heads(const LoadedModel& loaded) {
    const auto& dims = loaded.checkpoint.binding.values.dims;
    const int64_t layers = dims.at("DecoderLayers");
    const int64_t heads = dims.at("Heads");
    std::vector<backend::AttentionHead> chosen;
    if (loaded.generation.alignment_heads) {
        for (const auto& [layer, head] : *loaded.generation.alignment_heads) {
            if (layer < 0 || layer >= layers || head < 0 || head >= heads) {
                throw TranscriptionSetupError("generation_config.json names alignment head [" +
                                              std::to_string(layer) + ", " + std::to_string(head) +
                                              "], which the model does not have (" +
                                              std::to_string(layers) + " decoder layers of " +
                                              std::to_string(heads) + " heads)");
            }
            chosen.push_back({layer, head});
        }
    }
    if (chosen.empty()) chosen = decoding::default_alignment_heads(layers, heads);
    return chosen;
}

void apply_vocabulary_use(const TranscriptionChoice& choice, const LoadedModel& loaded,
                          decoding::DecodingOptions& decoding) {
    if (choice.vocabulary.empty() || choice.vocabulary_use != VocabularyUse::automatic) return;
    if (loaded.generation.condition_on_prev_tokens.value_or(true)) return;  // the prompt
    // A checkpoint trained without previous-text prompts reads a prompt as noise (the micro
    // model: README, "Custom vocabulary"): the bias instead.
    decoding.vocabulary_tokens.clear();
    decoding.vocabulary_logit_bias = choice.vocabulary_logit_bias;
    decoding.vocabulary_first_tokens = vocabulary_first_tokens(choice.vocabulary, loaded.tokenizer);
}

decoding::TranscribeOptions file_transcription_options(const TranscriptionChoice& choice,
                                                       const LoadedModel& loaded) {
    decoding::TranscribeOptions options;
    options.decoding = decoding_options(choice, loaded.tokenizer);
    apply_vocabulary_use(choice, loaded, options.decoding);
    apply_model_defaults(loaded, options);
    if (choice.word_timestamps) {
        if (!loaded.model->keeps_cross_attention()) {
            // The CPU and CUDA backends return them; a backend that does not is refused here.
            throw TranscriptionSetupError("word timestamps need cross-attention weights, which " +
                                          loaded.model->backend_name() +
                                          " does not return; use the CPU or CUDA backend");
        }
        options.word_timestamps = true;
        options.alignment_heads = alignment_heads(loaded);
    }
    return options;
}

decoding::StreamingOptions dictation_options(const TranscriptionChoice& choice,
                                             const LoadedModel& loaded,
                                             decoding::StreamingOptions streaming) {
    streaming.decoding = decoding_options(choice, loaded.tokenizer);
    apply_vocabulary_use(choice, loaded, streaming.decoding);
    apply_model_defaults(loaded, streaming);
    return streaming;
}

void apply_model_defaults(const LoadedModel& loaded, decoding::DecodingOptions& decoding) {
    if (loaded.generation.suppress_tokens)
        decoding.suppress_tokens = *loaded.generation.suppress_tokens;
}

void apply_model_defaults(const LoadedModel& loaded, decoding::TranscribeOptions& options) {
    apply_model_defaults(loaded, options.decoding);
    if (loaded.generation.condition_on_prev_tokens)
        options.condition_on_previous_text = *loaded.generation.condition_on_prev_tokens;
}

void apply_model_defaults(const LoadedModel& loaded, decoding::StreamingOptions& streaming) {
    apply_model_defaults(loaded, streaming.decoding);
    streaming.alignment_heads = alignment_heads(loaded);
}

}  // namespace earshot::app
