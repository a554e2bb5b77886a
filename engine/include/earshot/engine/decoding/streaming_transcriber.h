// StreamingTranscriber: the engine side of live dictation. Raw log-mel frames arrive one by one;
// every update listens to the current window (at most the model's Frames), decodes from the
// committed prefix, and splits the result into committed and tentative words with
// LocalAgreement-2; words are timed by cross-attention alignment where the model allows it.
// Single-threaded: the live controller's engine thread drives it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/decoding/local_agreement.h"
#include "earshot/engine/decoding/token_probability.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

// Whisper's normalization of one window of raw log-mel frames ([N][Mels], N <= frames) into a
// padded window [Mels, frames] (the audio module's normalize_window; passed in because the
// engine does not depend on the audio module).
using WindowNormalizer =
    std::function<void(std::span<const float> raw_frames /* [N][Mels] */, int64_t frames,
                       std::span<float> out /* [Mels, Frames] */)>;

// How often updates run.
enum class UpdatePacing {
    fixed,        // every update_frames of new audio
    engine_time,  // as often as the measured engine time allows: see paced_update_frames()
};

struct StreamingOptions {
    // language ("" = detect once, on the first window with speech), task, suppression. Streaming
    // decodes greedily with timestamps whatever beam_size, temperatures and timestamps say.
    DecodingOptions decoding;
    UpdatePacing pacing = UpdatePacing::engine_time;
    int64_t update_frames = 50;      // fixed: an update every 0.5 s of new audio (100 frames per
                                     //   second); engine_time: the longest interval
    int64_t min_update_frames = 10;  // engine_time: the shortest interval (0.1 s)
    double engine_share = 0.3;       // engine_time: the part of real time updates may take
    int prompt_max_tokens = 128;     // committed text kept as the prompt of later windows
    double pause_commit_s = 1.0;  // this much non-speech after speech commits the tentative words
    // ... and this much when the model closed the hypothesis's last segment with an end timestamp
    // at most 0.2 s after the VAD's last speech frame (or said nothing new): the VAD and the
    // model agree that the speech stopped. The VAD's hangover comes on top of both.
    double quick_pause_s = 0.1;
    // A word is agreed on only once the window holds this much audio after its end: a word at
    // the end of the audio is the model's guess from part of what follows (the micro model
    // closes a sentence after its first word, "see" of "see you next week", and two updates
    // 0.1 s apart guess alike). Pauses, a full window and the end commit regardless.
    double settle_s = 0.3;
    double new_tokens_per_s = 12.0;  // a window may add at most min_new_tokens + this * its seconds
    int min_new_tokens = 16;  //   (a hallucination loop cannot run to 224 tokens each update)
    bool use_vad = true;      // frames' speech flags gate decoding; off: every frame counts
    // Word times: these decoder heads' cross-attention over the update's text, warped onto the
    // window's audio (word_alignment.h: one more prefill per update that has words, no encoder
    // run). Empty, or a model that returns no cross-attention weights: estimates (WordTiming).
    std::vector<backend::AttentionHead> alignment_heads;
};

// engine_time pacing: the interval (frames of new audio) after updates that took engine_ms
// (their running mean) so that updates take about engine_share of real time, clamped to
// [min_update_frames, update_frames]. fixed: update_frames.
int64_t paced_update_frames(double engine_ms, const StreamingOptions& options);

// One token of a word: its text and how sure the decoder was when it sampled it.
struct StreamToken {
    std::string text;           // decoded alone (a piece of a multi-byte character may show as
                                //   the replacement character)
    double probability = -1.0;  // after Whisper's filters; -1 when not measured
    std::vector<std::pair<std::string, double>> alternatives;  // most probable others first
};

// How a word's times were found.
enum class WordTiming {
    aligned,    // cross-attention alignment (DTW) over the window's audio
    estimated,  // its segment's span shared among its words by length (see TimedWord)
};

// A word with times in seconds from the start of the stream. Committed words are final; times
// never go back: each word starts at or after the end of the word before it (committed words
// first, then tentative ones), and ends at or after its start.
struct StreamWord {
    std::string text;
    double start_s = 0.0;
    double end_s = 0.0;
    WordTiming timing = WordTiming::estimated;
    std::vector<StreamToken> tokens;  // its text tokens, in order (texts join to `text`)
};

// Why an update ran no decoder.
enum class UpdateGate {
    decoded,    // the window was heard and decoded
    silence,    // no speech in the window (energy VAD): nothing to decode
    no_speech,  // decoded, but Whisper's no-speech probability said silence (§5.5 rule)
    empty,      // no audio yet
    cancelled,  // stopped mid-decode
};

struct StreamUpdate {
    int64_t index = 0;           // 0, 1, ... per transcriber
    std::string committed_text;  // committed by this update (append to the transcript)
    std::vector<StreamWord> committed_words;
    std::string tentative_text;  // replaces the previous update's tentative text
    std::vector<StreamWord> tentative_words;
    double window_start_s = 0.0;  // the audio this update heard: [window_start_s,
    double audio_end_s = 0.0;     //   audio_end_s) of the stream
    double engine_ms = 0.0;       // listen + decode + policy
    double no_speech_prob = 0.0;
    int new_tokens = 0;  // tokens sampled by this update
    UpdateGate gate = UpdateGate::empty;
    bool forced_commit = false;  // committed without agreement: a pause or a full window
    int repeated_words = 0;      // words heard again, dropped: a restarted window's first
                                 //   words that repeat the committed ones (see run()), and a
                                 //   word that says the word before it again
                                 //   (repeats_last_committed)
    bool final = false;          // finish(): everything is committed
    // How this transcriber times words (StreamingTranscriber::word_timing()); a word committed
    // as it stood in an earlier update keeps its own `timing`.
    WordTiming word_timing = WordTiming::estimated;
};

class StreamingTranscriber {
public:
    // `model`, `tokenizer` and `normalize` must outlive the transcriber. Throws
    // std::invalid_argument for an unknown language or non-positive update_frames.
    StreamingTranscriber(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                         WindowNormalizer normalize, StreamingOptions options);

    // One raw log-mel frame [Mels] and the VAD's decision for it. Frames beyond room_frames() are
    // refused (std::logic_error): the caller updates first.
    void push_frame(std::span<const float> raw_frame, bool speech);
    // Frames the window can still take before an update must make room.
    int64_t room_frames() const;
    // update_frames() of audio arrived since the last update, or the window is full.
    bool update_due() const;
    // The interval before the next update is due, in frames (see UpdatePacing).
    int64_t update_frames() const { return interval_frames_; }

    // Hears the window, decodes, commits what two successive hypotheses agree on (the longest
    // common prefix; the last word only when the model closed its segment or the VAD heard it
    // end), everything after a pause, all but the last word when the window is full, and moves
    // the window start past finished segments.
    StreamUpdate update(const std::atomic<bool>* cancel = nullptr);
    // The end of the stream: decodes what is left and commits all of it.
    StreamUpdate finish(const std::atomic<bool>* cancel = nullptr);

    int64_t frames_received() const { return total_frames_; }
    const std::string& transcript() const { return transcript_; }  // all committed text
    const std::string& language() const { return language_; }      // "" until known
    // aligned when options name alignment heads and the model returns cross-attention weights.
    WordTiming word_timing() const { return word_timing_; }

private:
    StreamUpdate run(bool final, const std::atomic<bool>* cancel);
    // measured[i]: the probability of tokens[i] when this update sampled it, else null.
    // `closes_segments`: a pause, a full window or the end commits the words, and with all of
    // them the end timestamp of their last segment.
    void commit_words(const std::vector<TimedWord>& words, size_t count,
                      std::span<const int32_t> tokens,
                      std::span<const TokenProbability* const> measured, bool closes_segments,
                      double& floor_s, StreamUpdate& update);
    // `floor_s`: the stream time the word may not start before; advanced to its end.
    StreamWord stream_word(const TimedWord& word, std::span<const int32_t> tokens,
                           std::span<const TokenProbability* const> measured,
                           double& floor_s) const;
    // `words` (of `tokens`, window-relative) retimed by cross-attention alignment over
    // `window_mel` [1, Mels, Frames], the window the model listened to (window_frames of audio);
    // false (words unchanged) when there is nothing to align.
    bool align_times(std::vector<TimedWord>& words, std::span<const int32_t> tokens,
                     const backend::HostTensor& window_mel, int64_t window_frames);
    std::string token_text(int32_t token) const;
    void move_window_past_segments();
    void drop_window(int64_t keep_frames);
    size_t repeated_prefix(const std::vector<TimedWord>& words) const;
    void remember_committed(const StreamWord& word);
    // `text` says the last committed word again, with no punctuation between them: in dictation
    // that is the decoder filling audio it has already written down (a word the committed text
    // lacks shifts what it hears: "phone number number", "milk milk"), not a repeat the speaker
    // said; such a word's tokens join the committed prefix, its text is not committed.
    bool repeats_last_committed(const std::string& text) const;
    std::vector<int32_t> text_tokens(std::span<const int32_t> tokens) const;
    double seconds(int64_t frames) const;

    DecoderModel& model_;
    const tokenizer::Tokenizer& tok_;
    WindowNormalizer normalize_;
    StreamingOptions options_;
    int64_t mels_ = 0;
    int64_t frames_ = 0;  // the model's window

    std::vector<float> window_;           // [N][Mels] raw frames from window_start_frame_ on
    std::vector<uint8_t> window_speech_;  // [N] the VAD's flag of each (1 without the VAD)
    int64_t window_start_frame_ = 0;      // stream frame index of window_[0]
    int64_t total_frames_ = 0;            // frames pushed since construction
    int64_t last_speech_frame_ = -1;      // stream frame index of the last speech frame
    int64_t frames_at_last_update_ = 0;
    int64_t interval_frames_ = 0;       // update_frames()
    double engine_ms_mean_ = -1.0;      // running mean over decoded updates; < 0 before the first
    int64_t paused_speech_frame_ = -1;  // speech up to here was committed at a pause

    std::vector<int32_t> committed_;  // committed tokens inside the window (timestamps relative)
    std::vector<int32_t> prompt_;     // committed text tokens before the window, newest last
    LocalAgreement agreement_;
    std::vector<StreamWord> recent_committed_;  // the last kMaxRepeatedWords committed words
    bool check_repeats_ = false;  // the window restarted inside speech: look for repeated words
    std::vector<StreamWord> tentative_words_;     // the last hypothesis's uncommitted words
    std::vector<int32_t> tentative_text_tokens_;  // ... and their text tokens
    std::string transcript_;
    std::string language_;
    int32_t language_token_ = -1;
    std::vector<float> mel_;  // [Mels, Frames] scratch
    int64_t updates_ = 0;
    WordTiming word_timing_ = WordTiming::estimated;
    WordTiming update_timing_ = WordTiming::estimated;  // the words of the update being built
    double committed_end_s_ = 0.0;  // the last committed word's end (stream seconds)
};

std::string_view to_string(UpdateGate gate) noexcept;
std::string_view to_string(WordTiming timing) noexcept;

}  // namespace earshot::decoding
