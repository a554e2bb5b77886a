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
#include "earshot/engine/decoding/speech_activity.h"
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

// The segments one window added, in order (blank ones included, as run_seek_loop returns them),
// called before the next window is decoded; a segment reported is final.
using NewSegmentsFn = std::function<void(std::span<const Segment> segments)>;

// Where the seek loop pulls its windows from, so that a long file's log-mel need not be held whole:
// content_frames() frames of the file, then the log-mel of the silence appended after them (at
// least one window of it), normalized over all of it (see long_form.h).
class MelWindowSource {
public:
    virtual ~MelWindowSource() = default;
    virtual int64_t mels() const = 0;
    virtual int64_t content_frames() const = 0;
    // Frames [seek, seek + frames) as [1, Mels, frames], 0.0 past the frames the source has.
    // Calls come with `seek` never decreasing (a source may forget frames before the last seek).
    virtual backend::HostTensor window(int64_t seek, int64_t frames) = 0;
    // Where the file's audio is speech, when the source read its samples (nullptr: not known).
    // transcribe() snaps segment times to it (speech_activity.h).
    virtual const SpeechActivity* speech_activity() const { return nullptr; }
};

// A mel [Mels, N] held in memory (not owned: it outlives the source); content_frames is clamped
// to [0, N]. Throws std::invalid_argument when mel is not [Mels, N].
class TensorMelSource final : public MelWindowSource {
public:
    TensorMelSource(const backend::HostTensor& mel, int64_t content_frames);
    int64_t mels() const override;
    int64_t content_frames() const override { return content_frames_; }
    backend::HostTensor window(int64_t seek, int64_t frames) override;

private:
    const backend::HostTensor& mel_;
    int64_t content_frames_ = 0;
};

struct SeekLoopOptions {
    int64_t frames = 3000;                   // the model's window (Frames), 100 per second
    std::vector<int32_t> prompt_tokens;      // initial prompt, already encoded
    bool condition_on_previous_text = true;  // §5.6
    double no_speech_threshold = 0.6;        // §5.5
    double logprob_threshold = -1.0;
    // Where a full window's unfinished or edge segment resumes and how far a single timestamp
    // ending moves (see run_seek_loop): in the pause before the next sentence (true), or exactly
    // as openai's §5.8 (false).
    bool resume_in_pauses = true;
    // The same window decoded without timestamps (<|notimestamps|>), asked for when a window's
    // tokens are a single timestamp where the window cannot move on to it (see run_seek_loop);
    // empty: such a window gives a blank segment, as openai's transcribe() does.
    WindowDecodeFn decode_text_only;
};

// The seek loop of §5.8 over mel [Mels, N] (N >= content_frames), calling `decode_window` once per
// window; the loop itself, separated from the model so that it can be driven by scripted results.
//
// Per window at frame `seek`: segment_size = min(frames, content_frames - seek) frames hold the
// file; the window is the mel's frames [seek, seek + frames), so a last window is padded with the
// log-mel of the silence the caller appended after the content (0.0 only past N). Earshot's one
// convention, for inference and for training the micro model (its windows are zero-padded samples
// before the log-mel): silence padding, as openai's transcribe() did before 2023-12 and whisper.cpp
// does; current openai pads the log-mel with 0.0 (reference §1.6, §9.1), which a model trained
// on silence-padded windows has never seen. Then:
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
// Deviations when resume_in_pauses is set, for windows that hold a full `frames` of audio (the
// last window of a file keeps the rules above), so that the next window starts in the pause
// before a sentence, as the model saw its windows in training, never inside a sentence:
// - tokens that end in an unfinished segment (<|te|><|ts|> text...): the next window starts in
//   the pause between <|te|> and <|ts|>, past its middle and at most 0.5 s before <|ts|> (openai:
//   at <|te|>, which the models tested put 0.2-0.4 s early, inside the last word);
// - an unfinished segment without a pair (<|ts|> text..., or <|ts|> alone): no segment, the next
//   window starts before <|ts|> the same way (openai keeps the text with the times [time_offset,
//   time_offset + ts] and moves a whole window, cutting the sentence); one at <|0.00|> is kept
//   with the times [ts, window end];
// - a last segment that ends within 0.4 s of the window's end may be a sentence the window cuts
//   (the model closes it at the edge): it is dropped and re-decoded like an unfinished one;
// - a single timestamp ending: the next window starts at most 0.5 s before the window's end, not
//   at it, so a sentence that begins in those 0.5 s (too little for the model to say it) is not
//   cut;
// - a segment without a pair that opens with <|ts|> starts at ts, not at time_offset;
// - an unfinished segment alone at <|0.00|> whose window's audio, by the source's speech activity
//   (when known), holds a pause of at least 1 s and then more speech: the segment ends where that
//   pause starts, and the next window starts in it as above (openai: the segment runs to the
//   window's end and a whole window is skipped, with the speech after the pause, which the model
//   did not say).
//
// One deviation whenever options.decode_text_only is set: tokens that are one timestamp <|ts|>
// (the model heard speech begin there and said nothing of it, as models mark a sentence that a
// window cuts) in a window that cannot move on to it (the file's last window, or <|ts|> =
// <|0.00|>) would leave that speech as a blank segment, and the file's last sentence would be
// lost; the window is decoded again without timestamps, and its text is one segment [ts, the end
// of the window's audio]. Not when the source's speech activity (when known) holds less than
// 0.2 s of speech in [ts, the end of the window's audio], and not when the new result is
// silence by the no-speech rule (§5.5): then the blank segment stays.
//
// `progress` (may be empty) gets min(seek, content_frames) / content_frames after each window.
// When `*cancel` reads true the loop stops before the next window and returns what it has.
// `on_segments` (may be empty) gets each window's new segments, when it added any, before
// `progress` hears of that window.
std::vector<Segment> run_seek_loop(const backend::HostTensor& mel, int64_t content_frames,
                                   const SegmentVocabulary& vocabulary,
                                   const SeekLoopOptions& options,
                                   const WindowDecodeFn& decode_window,
                                   const std::function<void(double fraction)>& progress,
                                   const std::atomic<bool>* cancel,
                                   const NewSegmentsFn& on_segments = {});

// The same loop pulling each window from `mel` (the overload above wraps its array in a
// TensorMelSource); windows are asked for at non-decreasing seeks.
std::vector<Segment> run_seek_loop(MelWindowSource& mel, const SegmentVocabulary& vocabulary,
                                   const SeekLoopOptions& options,
                                   const WindowDecodeFn& decode_window,
                                   const std::function<void(double fraction)>& progress,
                                   const std::atomic<bool>* cancel,
                                   const NewSegmentsFn& on_segments = {});

}  // namespace earshot::decoding
