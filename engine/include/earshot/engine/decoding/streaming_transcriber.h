// StreamingTranscriber: the engine side of live dictation. Raw log-mel frames arrive one by one;
// every update listens to the current window (at most the model's Frames), decodes from the
// committed prefix, and splits the result into committed and tentative words with
// LocalAgreement-2; words are timed by cross-attention alignment where the model allows it.
// Single-threaded: the live controller's engine thread drives it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/live_cross_attention.h"
#include "earshot/engine/decoding/local_agreement.h"
#include "earshot/engine/decoding/stream_update.h"
#include "earshot/engine/decoding/streaming_options.h"
#include "earshot/engine/decoding/timed_words.h"
#include "earshot/engine/decoding/token_probability.h"
#include "earshot/engine/decoding/word_tokens.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

struct Continuation;
struct StreamHypothesis;  // decoding/streaming_steps.h
struct CommitChoice;      // decoding/streaming_steps.h

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
    // One update, in named steps (streaming_transcriber.cpp): an empty window and a silent one
    // run no decoder; otherwise decode_window() hears, decodes, commits and moves the window.
    StreamUpdate run(bool final, const std::atomic<bool>* cancel);
    StreamUpdate start_update(bool final);
    // No speech in the window, or none since the speech a pause committed.
    bool window_is_silent() const;
    void decode_window(bool final, int64_t window_frames, const std::atomic<bool>* cancel,
                       StreamUpdate& update);
    // [N][Mels] raw -> [1, Mels, Frames] normalized and padded, listened to; the language
    // detected on the first window that needs it.
    backend::HostTensor listen_to_window();
    // The decoder continued from the committed tokens, at most a window's share of new tokens.
    Continuation continue_from_committed(int64_t window_frames, const std::atomic<bool>* cancel);
    // Whisper's no-speech rule (§5.5) for a window with nothing committed.
    bool heard_no_speech(const Continuation& continuation) const;
    StreamHypothesis make_hypothesis(const Continuation& continuation, int64_t window_frames) const;
    // A window restarted inside speech: its first words that repeat the last committed ones join
    // the committed prefix without being committed again (update.repeated_words).
    void drop_repeated_start(StreamHypothesis& hypothesis, int64_t window_frames,
                             StreamUpdate& update);
    // How many words to commit: agreed ones, or more at a pause, a full window or the end.
    CommitChoice choose_commit(const std::vector<TimedWord>& words, int64_t window_frames,
                               bool final);
    // The words as shown (retimed by alignment): `choice.count` committed, the rest tentative.
    void show_words(const StreamHypothesis& hypothesis, const CommitChoice& choice,
                    const backend::HostTensor& window_mel, int64_t window_frames, bool final,
                    StreamUpdate& update);
    // After the words are shown: the window dropped at a pause or the end, moved to the last
    // word when full, else past finished segments (streaming_window.cpp).
    void move_window(const std::vector<TimedWord>& words, const CommitChoice& choice, bool final);
    // The running mean of engine time, and the interval it paces.
    void pace_updates(const StreamUpdate& update);

    // Words (streaming_words.cpp).
    // Commits the previous hypothesis's tentative words as they stand (a pause, the end).
    void commit_tentative(StreamUpdate& update);
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
    // align_times' prefill: the alignment heads' words; with options_.cross_attention asking,
    // the same prefill also keeps the chosen heads' map in live_map_.
    std::vector<AlignedWord> align_and_keep_map(std::span<const int32_t> text,
                                                const backend::HostTensor& window_mel,
                                                int64_t window_frames);
    std::string token_text(int32_t token) const;
    WordVocabulary word_vocabulary() const;
    size_t repeated_prefix(const std::vector<TimedWord>& words) const;
    void remember_committed(const StreamWord& word);
    // `text` says the last committed word again, with no punctuation between them: in dictation
    // that is the decoder filling audio it has already written down (a word the committed text
    // lacks shifts what it hears: "phone number number", "milk milk"), not a repeat the speaker
    // said; such a word's tokens join the committed prefix, its text is not committed.
    bool repeats_last_committed(const std::string& text) const;

    // The window (streaming_window.cpp).
    void move_window_past_segments();
    void drop_window(int64_t keep_frames);
    void cap_prompt();
    std::vector<int32_t> text_tokens(std::span<const int32_t> tokens) const;
    int64_t held_frames() const;  // frames in the window
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
    std::shared_ptr<const LiveCrossAttention> live_map_;  // the update's map, when kept
};

}  // namespace earshot::decoding
