// live_cross_attention_map: a dictation update's cross-attention (the map its own alignment
// prefill computed) as the view draws it: the tokens x audio-positions map and its warp path, the
// words read off the path, the window's log-mel and audio, in stream seconds.
#pragma once

#include <memory>
#include <vector>

#include "earshot/engine/decoding/live_cross_attention.h"
#include "earshot/ui/files/cross_attention_data.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

// `samples`: the window's audio from live.window_start_s at 16 kHz (may be null or short); the
// map shares it (no copy).
ui::CrossAttentionMap live_cross_attention_map(
    const decoding::LiveCrossAttention& live,
    const std::shared_ptr<const std::vector<float>>& samples,
    const tokenizer::Tokenizer& tokenizer);

}  // namespace earshot::app
