// Temperature fallback for one window (reference §5.4): decode at each temperature in turn until
// a result is neither repetitive nor improbable, treating likely silence as acceptable.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string_view>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/decoding_options.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

// compression_ratio > compression_ratio_threshold or avg_logprob < logprob_threshold, except
// when no_speech_prob > no_speech_threshold and avg_logprob < logprob_threshold (silence is
// accepted as it is). A NaN threshold is switched off, as openai's None.
bool needs_fallback(const WindowResult& result, const DecodingOptions& options);

// Calls decode_at(T) for each of options.temperatures in order and returns the first result that
// needs no fallback, else the last one. Throws std::invalid_argument on an empty list.
WindowResult run_temperature_fallback(const DecodingOptions& options,
                                      const std::function<WindowResult(double)>& decode_at);

// decode_window at each temperature (beam_size and patience at T = 0, best_of at T > 0). The
// language is resolved once, at the first temperature, and reused.
WindowResult decode_with_fallback(DecoderModel& model, const tokenizer::Tokenizer& tok,
                                  const backend::HostTensor& mel, std::span<const int32_t> prompt,
                                  std::string_view prefix, const DecodingOptions& options,
                                  std::mt19937_64& rng);

}  // namespace earshot::decoding
