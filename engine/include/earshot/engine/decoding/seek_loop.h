// The long-form seek loop of openai transcribe() (reference §5.5, §5.6, §5.8), separated from the
// model so that scripted window results can drive it: windows in, timed segments out.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/decoding/transcript.h"

namespace earshot::decoding {

// What the seek loop needs from a vocabulary: the timestamp and EOT ids and text decoding.
struct SegmentVocabulary {
    int32_t timestamp_begin = 0;  // <|0.00|>
    int32_t eot = 0;
    std::function<std::string(std::span<const int32_t>)> decode_text;  // ids < eot only
};

// One window: mel [1, Mels, Frames] and the prompt (previous tokens, newest last; the decoder
// keeps the last MaxTokens / 2 - 1 after <|startofprev|>) -> the accepted decoding result. The
// loop reads its tokens, avg_logprob, no_speech_prob, temperature and compression_ratio.
using WindowDecodeFn =
    std::function<WindowResult(const backend::HostTensor& window, std::span<const int32_t> prompt)>;

struct SeekLoopOptions {
    int64_t frames = 3000;                   // the model's window (Frames), 100 per second
    std::vector<int32_t> prompt_tokens;      // initial prompt, already encoded
    bool condition_on_previous_text = true;  // §5.6
    double no_speech_threshold = 0.6;        // §5.5
    double logprob_threshold = -1.0;
};

// The seek loop of §5.8 over mel [Mels, N] (N >= content_frames), calling `decode_window` once per
// window; the loop itself, separated from the model so that it can be driven by scripted results.
//
// Per window at frame `seek`: segment_size = min(frames, content_frames - seek) frames are cut
// from the mel and padded to `frames` with 0.0 in the normalized log-mel domain, as openai's
// transcribe() does since 2023-12 (reference §1.6, §9.1; whisper.cpp pads with log-mel of silence
// instead). Then:
// - no-speech skip (§5.5): seek += segment_size, no segment, prompt unchanged;
// - consecutive timestamp pairs split the tokens into segments; seek advances to the last complete
//   pair's timestamp, or by segment_size when the tokens end in a single timestamp;
// - without a pair: one segment to the last timestamp (or the whole window) and
//   seek += segment_size;
// - a segment with start == end or blank text keeps its times but gets text "" and no tokens
//   (tested on the times the tokens give, before the clamping below, as openai does);
// - the kept segments' tokens extend the prompt; the prompt restarts empty after a window
//   accepted at temperature > 0.5 or when condition_on_previous_text is off (§5.6).
// Two guards beyond §5.8, for decoders that break the timestamp rules (a pair at <|0.00|> would
// advance seek by 0 and loop forever): the advance is at least one frame (a computed advance
// below one frame moves seek by the whole segment_size) and at most segment_size; and segment
// times are clamped to [time_offset, time_offset + segment_size / 100], the audio the window
// holds (openai lets a timestamp in the padding run past the end of the file). The clamping is
// for display only: a segment whose clamped start equals its end keeps its text and tokens.
//
// `progress` (may be empty) gets min(seek, content_frames) / content_frames after each window.
// When `*cancel` reads true the loop stops before the next window and returns what it has.
std::vector<Segment> run_seek_loop(const backend::HostTensor& mel, int64_t content_frames,
                                   const SegmentVocabulary& vocabulary,
                                   const SeekLoopOptions& options,
                                   const WindowDecodeFn& decode_window,
                                   const std::function<void(double fraction)>& progress,
                                   const std::atomic<bool>* cancel);

}  // namespace earshot::decoding
