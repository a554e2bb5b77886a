// StreamingTranscriber: frames in, and each update as named steps: hear the window, continue the
// committed tokens, choose what to commit (LocalAgreement-2, pauses, a full window), show the words
// and move the window.
#include "earshot/engine/decoding/streaming_transcriber.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

#include "earshot/engine/decoding/continuation_decoder.h"
#include "earshot/engine/decoding/language_detection.h"
#include "earshot/engine/decoding/window_decoder.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "streaming_steps.h"

namespace earshot::decoding {

namespace {

// A quick pause needs the model's end timestamp at most this far after the VAD's last speech
// frame (two timestamp steps of slack on the VAD's 10 ms frames).
constexpr double kPauseAgreementS = 0.2;
// engine_time pacing: the weight of the newest update in the running mean of engine time.
constexpr double kEngineMeanWeight = 0.25;

}  // namespace

StreamingTranscriber::StreamingTranscriber(DecoderModel& model,
                                           const tokenizer::Tokenizer& tokenizer,
                                           WindowNormalizer normalize, StreamingOptions options)
    : model_(model),
      tok_(tokenizer),
      normalize_(std::move(normalize)),
      options_(std::move(options)),
      mels_(model.mels()),
      frames_(model.frames()) {
    if (options_.update_frames <= 0) {
        throw std::invalid_argument("streaming: update_frames must be positive, got " +
                                    std::to_string(options_.update_frames));
    }
    if (options_.pacing == UpdatePacing::engine_time &&
        (options_.min_update_frames <= 0 || !(options_.engine_share > 0.0))) {
        throw std::invalid_argument(
            "streaming: engine_time pacing needs min_update_frames and engine_share above 0");
    }
    if (!normalize_) throw std::invalid_argument("streaming: no window normalizer");
    interval_frames_ = paced_update_frames(0.0, options_);
    if (!tok_.multilingual()) {
        language_ = "en";
    } else if (!options_.decoding.language.empty()) {
        language_token_ = tok_.language_token(options_.decoding.language);
        if (language_token_ < 0) {
            throw std::invalid_argument("streaming: unknown language \"" +
                                        options_.decoding.language + "\"");
        }
        language_ = std::string(tok_.language_code(language_token_));
    }
    options_.decoding.timestamps = true;
    if (!options_.alignment_heads.empty() && model_.keeps_cross_attention()) {
        word_timing_ = WordTiming::aligned;
    }
    window_.reserve(static_cast<size_t>(frames_ * mels_));
    mel_.resize(static_cast<size_t>(frames_ * mels_));
}

int64_t StreamingTranscriber::room_frames() const { return frames_ - held_frames(); }

bool StreamingTranscriber::update_due() const {
    return total_frames_ - frames_at_last_update_ >= interval_frames_ || room_frames() == 0;
}

void StreamingTranscriber::push_frame(std::span<const float> raw_frame, bool speech) {
    if (static_cast<int64_t>(raw_frame.size()) != mels_) {
        throw std::invalid_argument("streaming: a frame has " + std::to_string(raw_frame.size()) +
                                    " mels, the model " + std::to_string(mels_));
    }
    if (room_frames() <= 0) throw std::logic_error("streaming: the window is full; update first");
    window_.insert(window_.end(), raw_frame.begin(), raw_frame.end());
    window_speech_.push_back(speech || !options_.use_vad ? 1 : 0);
    if (speech || !options_.use_vad) last_speech_frame_ = total_frames_;
    ++total_frames_;
}

StreamUpdate StreamingTranscriber::update(const std::atomic<bool>* cancel) {
    return run(false, cancel);
}

StreamUpdate StreamingTranscriber::finish(const std::atomic<bool>* cancel) {
    return run(true, cancel);
}

StreamUpdate StreamingTranscriber::run(bool final, const std::atomic<bool>* cancel) {
    const auto started = std::chrono::steady_clock::now();
    StreamUpdate update = start_update(final);
    const int64_t window_frames = held_frames();
    if (window_frames == 0) {
        update.gate = UpdateGate::empty;
        if (final) commit_tentative(update);
    } else if (window_is_silent()) {
        update.gate = UpdateGate::silence;
        commit_tentative(update);
        drop_window(final ? 0 : kOnsetKeepFrames);
    } else {
        decode_window(final, window_frames, cancel, update);
    }
    transcript_ += update.committed_text;
    update.engine_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    pace_updates(update);
    return update;
}

StreamUpdate StreamingTranscriber::start_update(bool final) {
    StreamUpdate update;
    update.index = updates_++;
    update.final = final;
    update.word_timing = word_timing_;
    update.window_start_s = seconds(window_start_frame_);
    update.audio_end_s = seconds(total_frames_);
    frames_at_last_update_ = total_frames_;
    return update;
}

bool StreamingTranscriber::window_is_silent() const {
    // The frames kept for the next word's onset after a pause are the VAD's hangover of the
    // speech it committed.
    return last_speech_frame_ < window_start_frame_ || last_speech_frame_ <= paused_speech_frame_;
}

void StreamingTranscriber::decode_window(bool final, int64_t window_frames,
                                         const std::atomic<bool>* cancel, StreamUpdate& update) {
    const backend::HostTensor window_mel = listen_to_window();
    Continuation continuation = continue_from_committed(window_frames, cancel);
    update.no_speech_prob = continuation.no_speech_prob;
    update.new_tokens = static_cast<int>(continuation.tokens.size());
    update.gate = UpdateGate::decoded;
    if (continuation.cancelled) {
        update.gate = UpdateGate::cancelled;
        if (final) {
            commit_tentative(update);
            drop_window(0);
        }
        return;
    }
    if (heard_no_speech(continuation)) {
        continuation.tokens.clear();  // §5.5: silence, whatever was sampled
        update.gate = UpdateGate::no_speech;
    }
    StreamHypothesis hypothesis = make_hypothesis(continuation, window_frames);
    drop_repeated_start(hypothesis, window_frames, update);
    const CommitChoice choice = choose_commit(hypothesis.words, window_frames, final);
    update.forced_commit = choice.count > choice.agreed;
    show_words(hypothesis, choice, window_mel, window_frames, final, update);
    move_window(hypothesis.words, choice, final);
}

backend::HostTensor StreamingTranscriber::listen_to_window() {
    // [N][Mels] raw -> [1, Mels, Frames] normalized and padded
    normalize_(window_, frames_, mel_);
    backend::HostTensor window_mel = backend::HostTensor::f32({1, mels_, frames_}, mel_);
    model_.listen(window_mel);
    if (language_token_ < 0 && tok_.multilingual()) {
        const LanguageGuess guess = detect_listened_language(model_, tok_);
        language_token_ = guess.token;
        language_ = guess.code;
    }
    return window_mel;
}

Continuation StreamingTranscriber::continue_from_committed(int64_t window_frames,
                                                           const std::atomic<bool>* cancel) {
    WindowSetup setup = make_window_setup(tok_, options_.decoding, language_token_, prompt_, "",
                                          model_.max_tokens());
    const int sample_len = std::max(setup.sample_len, 1);
    const int max_new = std::min<int>(
        sample_len, options_.min_new_tokens +
                        static_cast<int>(options_.new_tokens_per_s * seconds(window_frames)));
    if (static_cast<int64_t>(setup.initial_tokens.size() + committed_.size()) + max_new >=
        model_.max_tokens()) {
        // No room for prompt and committed tokens together: decode without the prompt (and
        // without the vocabulary that opens it).
        DecodingOptions unprompted = options_.decoding;
        unprompted.vocabulary_tokens.clear();
        setup = make_window_setup(tok_, unprompted, language_token_, {}, "", model_.max_tokens());
    }
    const size_t forced_begin = setup.initial_tokens.size();
    setup.initial_tokens.insert(setup.initial_tokens.end(), committed_.begin(), committed_.end());
    return decode_continuation(model_, setup, forced_begin, max_new, cancel);
}

bool StreamingTranscriber::heard_no_speech(const Continuation& continuation) const {
    return committed_.empty() &&
           continuation.no_speech_prob > options_.decoding.no_speech_threshold &&
           continuation.avg_logprob < options_.decoding.logprob_threshold;
}

StreamHypothesis StreamingTranscriber::make_hypothesis(const Continuation& continuation,
                                                       int64_t window_frames) const {
    StreamHypothesis hypothesis;
    std::vector<int32_t>& tokens = hypothesis.tokens;
    tokens = committed_;
    tokens.insert(tokens.end(), continuation.tokens.begin(), continuation.tokens.end());
    hypothesis.measured.assign(tokens.size(), nullptr);
    for (size_t i = 0; i < continuation.probabilities.size(); ++i) {
        hypothesis.measured[committed_.size() + i] = &continuation.probabilities[i];
    }
    hypothesis.words =
        split_timed_words(tokens, committed_.size(), word_vocabulary(), seconds(window_frames));
    return hypothesis;
}

void StreamingTranscriber::drop_repeated_start(StreamHypothesis& hypothesis, int64_t window_frames,
                                               StreamUpdate& update) {
    std::vector<TimedWord>& words = hypothesis.words;
    if (!check_repeats_ || !committed_.empty() || words.empty()) return;
    // The first hypothesis of a window restarted inside speech (a full window, or a start moved
    // to a segment's end timestamp): words it opens with that repeat the last committed ones were
    // heard twice. They join the committed prefix (the decoder is forced through them from now
    // on) without being committed again.
    check_repeats_ = false;
    const size_t n = repeated_prefix(words);
    if (n == 0) return;
    const TimedWord& last = words[n - 1];
    const size_t end = last.closes_segment ? last.closing_index + 1 : last.token_end;
    const std::vector<int32_t>& tokens = hypothesis.tokens;
    committed_.assign(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(end));
    words = split_timed_words(tokens, committed_.size(), word_vocabulary(), seconds(window_frames));
    update.repeated_words = static_cast<int>(n);
}

CommitChoice StreamingTranscriber::choose_commit(const std::vector<TimedWord>& words,
                                                 int64_t window_frames, bool final) {
    CommitChoice choice;
    const int64_t trailing_silence_frames = total_frames_ - 1 - last_speech_frame_;
    // The last word may still be sounding (and be the start of a longer one) unless the model
    // closed its segment or the VAD heard the speech stop: agreement leaves it out.
    const bool still_sounding =
        trailing_silence_frames <= 0 && !words.empty() && !words.back().closes_segment && !final;
    // ... and words that end less than settle_s before the end of the window's audio are held
    // back as well: the model has not heard enough of what follows them.
    size_t limit = still_sounding ? words.size() - 1 : words.size();
    const double settled_until_s = seconds(window_frames) - options_.settle_s;
    while (limit > 0 && words[limit - 1].end_s > settled_until_s) --limit;
    choice.agreed = agreement_.agree(words, limit);
    choice.silence_s = options_.use_vad ? seconds(trailing_silence_frames) : 0.0;
    choice.pause = options_.use_vad && choice.silence_s >= options_.pause_commit_s;
    if (options_.use_vad && !choice.pause && choice.silence_s >= options_.quick_pause_s) {
        // A quick pause: the model's own end of the speech agrees with the VAD's.
        const double vad_end_s = seconds(last_speech_frame_ + 1 - window_start_frame_);
        choice.pause = words.empty() || (words.back().closes_segment &&
                                         words.back().end_s <= vad_end_s + kPauseAgreementS);
    }
    choice.full = room_frames() <= interval_frames_;
    choice.count = choice.agreed;
    if (final || choice.pause) {
        choice.count = words.size();
    } else if (choice.full) {
        choice.count = std::max(choice.agreed, words.empty() ? size_t{0} : words.size() - 1);
    }
    return choice;
}

void StreamingTranscriber::show_words(const StreamHypothesis& hypothesis,
                                      const CommitChoice& choice,
                                      const backend::HostTensor& window_mel, int64_t window_frames,
                                      bool final, StreamUpdate& update) {
    const std::vector<TimedWord>& words = hypothesis.words;
    const std::vector<int32_t>& tokens = hypothesis.tokens;
    // The words as shown, retimed by alignment; the commit rules and the window keep the
    // segment-based times of `words` (a window restarted at a word, a pause the model's end
    // timestamp confirms).
    std::vector<TimedWord> shown = words;
    live_map_.reset();
    update_timing_ =
        word_timing_ == WordTiming::aligned && align_times(shown, tokens, window_mel, window_frames)
            ? WordTiming::aligned
            : WordTiming::estimated;
    double floor_s = committed_end_s_;
    commit_words(shown, choice.count, tokens, hypothesis.measured,
                 final || choice.pause || choice.full, floor_s, update);

    tentative_words_.clear();
    tentative_text_tokens_.clear();
    for (size_t i = choice.count; i < words.size(); ++i) {
        update.tentative_text += words[i].text;
        tentative_words_.push_back(stream_word(shown[i], tokens, hypothesis.measured, floor_s));
        tentative_text_tokens_.insert(
            tentative_text_tokens_.end(),
            tokens.begin() + static_cast<std::ptrdiff_t>(words[i].token_begin),
            tokens.begin() + static_cast<std::ptrdiff_t>(words[i].token_end));
    }
    update.tentative_words = tentative_words_;
    update.cross_attention = std::move(live_map_);
}

void StreamingTranscriber::pace_updates(const StreamUpdate& update) {
    if (update.gate != UpdateGate::decoded && update.gate != UpdateGate::no_speech) return;
    engine_ms_mean_ =
        engine_ms_mean_ < 0.0
            ? update.engine_ms
            : engine_ms_mean_ + kEngineMeanWeight * (update.engine_ms - engine_ms_mean_);
    interval_frames_ = paced_update_frames(engine_ms_mean_, options_);
}

}  // namespace earshot::decoding
