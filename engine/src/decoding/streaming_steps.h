// What one StreamingTranscriber update's steps hand each other (the hypothesis, the commit
// choice), and the constants its files share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "earshot/engine/decoding/timed_words.h"
#include "earshot/engine/decoding/token_probability.h"

namespace earshot::decoding {

inline constexpr double kFramesPerSecond = 100.0;  // 10 ms hop (reference §1.1)
inline constexpr int64_t kFramesPerTimestamp = 2;  // <|0.02|> steps over 10 ms frames
// Silence kept at the window start after the window is dropped at a pause: a word whose onset
// the energy VAD judged quiet still reaches the encoder.
inline constexpr int64_t kOnsetKeepFrames = 30;

// One update's hypothesis: the committed tokens and the decoder's continuation, as words.
struct StreamHypothesis {
    std::vector<int32_t> tokens;  // committed + continuation, window-relative
    // How sure the decoder was of each token it sampled now (the committed ones were forced:
    // null). Points into the Continuation, which outlives the hypothesis.
    std::vector<const TokenProbability*> measured;  // [tokens.size()]
    std::vector<TimedWord> words;                   // of the tokens after the committed ones
};

// Which of a hypothesis's words an update commits, and why.
struct CommitChoice {
    size_t agreed = 0;  // the words LocalAgreement-2 agreed on
    size_t count = 0;   // the words committed: agreed, or more at a pause, a full window, the end
    bool pause = false;
    bool full = false;       // the window has no room for another interval
    double silence_s = 0.0;  // the VAD's silence at the end of the audio (0 without the VAD)
};

}  // namespace earshot::decoding
