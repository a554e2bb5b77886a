// Temperature fallback and its decision rule (reference §5.4, openai's decode_with_fallback).
#include "earshot/engine/decoding/fallback.h"

#include <stdexcept>

#include "earshot/engine/decoding/window_decoder.h"

namespace earshot::decoding {

bool needs_fallback(const WindowResult& result, const DecodingOptions& options) {
    const bool improbable = result.avg_logprob < options.logprob_threshold;
    if (result.no_speech_prob > options.no_speech_threshold && improbable) return false;
    return result.compression_ratio > options.compression_ratio_threshold || improbable;
}

WindowResult run_temperature_fallback(const DecodingOptions& options,
                                      const std::function<WindowResult(double)>& decode_at) {
    if (options.temperatures.empty()) {
        throw std::invalid_argument("temperature fallback: no temperatures to decode at");
    }
    WindowResult result;
    for (double temperature : options.temperatures) {
        result = decode_at(temperature);
        if (!needs_fallback(result, options)) break;
    }
    return result;
}

WindowResult decode_with_fallback(DecoderModel& model, const tokenizer::Tokenizer& tok,
                                  const backend::HostTensor& mel, std::span<const int32_t> prompt,
                                  std::string_view prefix, const DecodingOptions& options,
                                  std::mt19937_64& rng) {
    DecodingOptions resolved = options;
    return run_temperature_fallback(options, [&](double temperature) {
        WindowResult result =
            decode_window(model, tok, mel, prompt, prefix, resolved, temperature, rng);
        if (resolved.language.empty()) resolved.language = result.language;  // detect once
        return result;
    });
}

}  // namespace earshot::decoding
