// The cross-attention of live dictation's current hypothesis: the tokens x audio-positions map
// that the update's own word-timing prefill computed (no second encoder run, no second prefill),
// of the alignment heads or of one chosen decoder head, with the window's log-mel.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/alignment_map.h"

namespace earshot::decoding {

// What the UI asks of the next updates, from any thread: whether to keep the map, and of which
// head (layer -1: the alignment heads). Read once per update by the decoding thread.
struct LiveCrossAttentionChoice {
    std::atomic<bool> keep{false};
    std::atomic<int> layer{-1};
    std::atomic<int> head{-1};
};

struct LiveCrossAttention {
    // The heads the map averages: the alignment heads, or the chosen one.
    std::vector<backend::AttentionHead> heads;
    bool alignment_heads = true;
    // [1, heads.size(), S, Audio]: the probabilities the update's alignment prefill computed for
    // `heads`, over SOT (+ language, task), <|notimestamps|>, the text tokens, EOT.
    backend::HostTensor weights;
    size_t sot_length = 0;  // prompt tokens before the text, ending in <|notimestamps|>
    // The map (alignment_map.h) of `weights`: row 0 <|notimestamps|>, then one row per text token.
    AlignmentMap map;
    std::vector<int32_t> text_tokens;     // the hypothesis's text tokens, as prefilled
    std::string language;                 // the window's ("en")
    std::vector<std::string> row_tokens;  // one per map row: "<|notimestamps|>", then text pieces
    double window_start_s = 0.0;          // stream time of audio position 0
    int64_t window_frames = 0;            // mel frames of audio in the window (0.01 s each)
    // The window as the model heard it: normalized log-mel [mels, frames], padded past
    // window_frames.
    std::vector<float> mel;
    int64_t mels = 0;
    int64_t frames = 0;
};

// weights [B, H, S, A] -> [B, heads.size(), S, A]: the heads at `indices`, in that order.
backend::HostTensor select_heads(const backend::HostTensor& weights,
                                 const std::vector<size_t>& indices);

}  // namespace earshot::decoding
