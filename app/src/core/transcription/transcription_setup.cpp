// The choice -> the engine's options, checked against the model; the checkpoint's defaults.
#include "earshot/core/transcription_setup.h"

#include <string>
#include <utility>

#include "core/transcription/language_choice.h"
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

decoding::TranscribeOptions file_transcription_options(const TranscriptionChoice& choice,
                                                       const LoadedModel& loaded) {
    decoding::TranscribeOptions options;
    options.decoding = decoding_options(choice, loaded.tokenizer);
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
