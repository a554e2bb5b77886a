// The alignment as a picture: the alignment heads' cross-attention over a window, turned into the
// tokens x audio-positions matrix that word timing warps (openai's timing.py), with its warp path
// and the word spans read off it. Word times (word_alignment.h) and the inspector's view share it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/time_warp.h"
#include "earshot/engine/decoding/word_tokens.h"

namespace earshot::decoding {

// openai's default: the attention is median filtered along time 7 positions wide.
inline constexpr int64_t kMedianFilterWidth = 7;

struct AlignmentMap {
    // [rows, positions]: row 0 is <|notimestamps|> (it predicts the first text token), row r the
    // r-th text token; per head renormalized over the window's positions, standardized over the
    // tokens, median filtered along time, then averaged over the heads. Higher: more attention.
    std::vector<float> matrix;
    int64_t rows = 0;
    int64_t positions = 0;  // audio positions of the window's audio, 0.02 s each
    WarpPath path;          // the cheapest monotonic path through -matrix
    // Per row, the audio position where the path first reaches it (rows entries).
    std::vector<int64_t> jump_positions;
};

// weights [1, heads, S, Audio]: cross-attention probabilities of a prefill over sot_sequence
// (sot_length tokens, ending in <|notimestamps|>) + n_text text tokens + EOT. Only the first
// num_frames / 2 audio positions are kept. Throws std::invalid_argument on a weights shape that
// does not fit (naming it).
AlignmentMap alignment_map(const backend::HostTensor& weights, size_t sot_length, int64_t n_text,
                           int64_t num_frames);

}  // namespace earshot::decoding
