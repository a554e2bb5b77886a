// Long-form transcription of a whole file: openai transcribe() (reference §5.5, §5.6, §5.8) on a
// DecoderModel, window by window through the temperature fallback and the seek loop.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/decoding/seek_loop.h"
#include "earshot/engine/decoding/transcript.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

struct TranscribeOptions {
    // Per window. An empty `language` is resolved once per file: "en" for English-only
    // vocabularies, otherwise detect_language on the mel's first model.frames() frames (the
    // silence-padded start, as openai), kept for every window. `seed` seeds the
    // sampling generator; no_speech_threshold and logprob_threshold also drive the skip (§5.5).
    DecodingOptions decoding;
    std::string initial_prompt;  // encoded as " " + stripped text: the first prompt (§5.6)
    bool condition_on_previous_text = true;
    // Word times (openai's word_timestamps): each window's segments get their words, aligned on
    // the cross-attention of `alignment_heads` (at least one; the checkpoint's, or
    // default_alignment_heads), and their times fitted to them (word_alignment.h).
    bool word_timestamps = false;
    std::vector<backend::AttentionHead> alignment_heads;
    // Segment times snapped to the speech in the audio (speech_activity.h), when the mel source
    // knows where it is; false: the model's timestamps as openai reports them. The seek loop works
    // from the model's either way, so the text is the same.
    bool snap_times_to_speech = true;
    SpeechSnapOptions speech_snap;
};

// mel [Mels, N]: the file's log-mel with model.frames() frames of silence appended (30 s for the
// released models) and normalized over all of it, as openai does (global max - 8 clamp, reference
// §1.5, §1.6); content_frames = N - model.frames(), the frames that hold the file. Each window
// (run_seek_loop: cut at seek, a last one padded with that silence) goes through
// decode_with_fallback with the prompt the loop keeps; transcript.text joins the segment texts.
// `progress` gets the fraction of content frames done after each window; a set `*cancel` stops
// before the next window and the transcript holds what was done. `on_segments` (may be empty) gets
// the segments each window adds as soon as it is decoded (blank ones included, as in
// transcript.segments), so that a caller can show them while the file is transcribed. Throws
// std::invalid_argument when mel is not [model.mels(), N].
Transcript transcribe(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                      const backend::HostTensor& mel, int64_t content_frames,
                      const TranscribeOptions& options,
                      const std::function<void(double fraction)>& progress,
                      const std::atomic<bool>* cancel, const NewSegmentsFn& on_segments = {});

// The same, pulling the windows (and the language detection's first window) from `mel`, so that a
// long file's log-mel can be computed window by window. Throws std::invalid_argument when
// mel.mels() != model.mels().
Transcript transcribe(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                      MelWindowSource& mel, const TranscribeOptions& options,
                      const std::function<void(double fraction)>& progress,
                      const std::atomic<bool>* cancel, const NewSegmentsFn& on_segments = {});

}  // namespace earshot::decoding
