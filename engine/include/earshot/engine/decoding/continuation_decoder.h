// Greedy decoding of one streaming window from a forced prefix: the committed tokens of the
// window are fed (prefill), and the decoder continues after them (step) with Whisper's filters.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/token_probability.h"
#include "earshot/engine/decoding/window_search.h"

namespace earshot::decoding {

// The alternatives kept with each sampled token (Continuation::probabilities).
inline constexpr size_t kTokenAlternatives = 3;

struct Continuation {
    std::vector<int32_t> tokens;  // sampled after the forced tokens, without EOT
    // One per token: how sure the step was, and its most probable alternatives.
    std::vector<TokenProbability> probabilities;
    double no_speech_prob = 0.0;  // P(<|nospeech|>) at SOT (§5.7)
    double avg_logprob = 0.0;     // sum_logprob / (tokens + 1), as §5.3 (EOT counted)
    bool reached_eot = false;     // false: stopped by max_new_tokens, max_tokens or cancel
    bool cancelled = false;
};

// The model has listened to the window. setup.initial_tokens = [<|startofprev|> prompt] + SOT
// sequence + forced tokens, the forced ones from index `forced_begin` on (timestamps included).
// Runs prefill over the tokens through SOT (the no-speech probability), prefill over all initial
// tokens, then greedy steps: filtered logits (setup.filters) with the forced tokens counted as
// already sampled, so the timestamp rules see the committed segments; argmax; until EOT,
// max_new_tokens, the model's last position, or `*cancel` (checked between steps).
Continuation decode_continuation(DecoderModel& model, const WindowSetup& setup, size_t forced_begin,
                                 int max_new_tokens, const std::atomic<bool>* cancel);

}  // namespace earshot::decoding
