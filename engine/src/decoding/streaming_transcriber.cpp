// The engine side of live dictation: window, continuation decoding, LocalAgreement-2, window moves,
// word times.
#include "earshot/engine/decoding/streaming_transcriber.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "earshot/engine/decoding/continuation_decoder.h"
#include "earshot/engine/decoding/language_detection.h"
#include "earshot/engine/decoding/logit_filters.h"
#include "earshot/engine/decoding/timed_words.h"
#include "earshot/engine/decoding/window_decoder.h"
#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::decoding {

namespace {

constexpr double kFramesPerSecond = 100.0;  // 10 ms hop (reference §1.1)
constexpr int64_t kFramesPerTimestamp = 2;  // <|0.02|> steps over 10 ms frames
// Silence kept at the window start after the window is dropped at a pause: a word whose onset
// the energy VAD judged quiet still reaches the encoder.
constexpr int64_t kOnsetKeepFrames = 30;
// A window restarted inside speech starts at an estimated word time, so it may hear the last
// committed words again; this many are compared with the new hypothesis's first words.
constexpr size_t kMaxRepeatedWords = 5;
// A quick pause needs the model's end timestamp at most this far after the VAD's last speech
// frame (two timestamp steps of slack on the VAD's 10 ms frames).
constexpr double kPauseAgreementS = 0.2;
// engine_time pacing: the weight of the newest update in the running mean of engine time.
constexpr double kEngineMeanWeight = 0.25;
// The window moves past a finished segment only into a pause (the VAD's, hangover included): at
// least this many frames of non-speech, starting at most kMoveSlackFrames after the segment's
// end timestamp (end timestamps run early, inside the last word).
constexpr int64_t kMovePauseFrames = 20;
constexpr int64_t kMoveSlackFrames = 50;

}  // namespace

int64_t paced_update_frames(double engine_ms, const StreamingOptions& options) {
    const int64_t most = std::max<int64_t>(options.update_frames, 1);
    if (options.pacing == UpdatePacing::fixed) return most;
    const int64_t least = std::clamp<int64_t>(options.min_update_frames, 1, most);
    const double ms_per_frame = 1000.0 / kFramesPerSecond;
    const double frames = std::ceil(std::max(engine_ms, 0.0) / options.engine_share / ms_per_frame);
    if (!(frames < static_cast<double>(most))) return most;  // NaN and huge included
    return std::max(least, static_cast<int64_t>(frames));
}

std::string_view to_string(UpdateGate gate) noexcept {
    switch (gate) {
        case UpdateGate::decoded:
            return "decoded";
        case UpdateGate::silence:
            return "silence";
        case UpdateGate::no_speech:
            return "no_speech";
        case UpdateGate::empty:
            return "empty";
        case UpdateGate::cancelled:
            return "cancelled";
    }
    return "?";
}

std::string_view to_string(WordTiming timing) noexcept {
    return timing == WordTiming::aligned ? "aligned" : "estimated";
}

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

double StreamingTranscriber::seconds(int64_t frames) const {
    return static_cast<double>(frames) / kFramesPerSecond;
}

int64_t StreamingTranscriber::room_frames() const {
    return frames_ - static_cast<int64_t>(window_.size()) / mels_;
}

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

std::vector<int32_t> StreamingTranscriber::text_tokens(std::span<const int32_t> tokens) const {
    std::vector<int32_t> text;
    for (int32_t id : tokens) {
        if (id < tok_.specials().eot) text.push_back(id);
    }
    return text;
}

std::string StreamingTranscriber::token_text(int32_t token) const {
    const std::array<int32_t, 1> one{token};
    return token < tok_.specials().eot ? tok_.decode_text(one) : tok_.token_name(token);
}

StreamWord StreamingTranscriber::stream_word(const TimedWord& word, std::span<const int32_t> tokens,
                                             std::span<const TokenProbability* const> measured,
                                             double& floor_s) const {
    const double offset_s = seconds(window_start_frame_);
    const double start_s = std::max(offset_s + word.start_s, floor_s);
    StreamWord out{
        word.text, start_s, std::max(offset_s + word.end_s, start_s), update_timing_, {}};
    floor_s = out.end_s;
    for (size_t i = word.token_begin; i < word.token_end; ++i) {
        StreamToken token{token_text(tokens[i]), -1.0, {}};
        if (const TokenProbability* p = measured[i]; p != nullptr) {
            token.probability = p->probability;
            for (const TokenAlternative& alternative : p->alternatives) {
                token.alternatives.emplace_back(token_text(alternative.token),
                                                alternative.probability);
            }
        }
        out.tokens.push_back(std::move(token));
    }
    return out;
}

void StreamingTranscriber::commit_words(const std::vector<TimedWord>& words, size_t count,
                                        std::span<const int32_t> tokens,
                                        std::span<const TokenProbability* const> measured,
                                        bool closes_segments, double& floor_s,
                                        StreamUpdate& update) {
    if (count == 0) return;
    const TimedWord& last = words[count - 1];
    // The segment's end timestamp is committed with its last word only when everything heard is
    // (a pause, the end): otherwise the model may yet say that the sentence goes on, and a
    // forced end puts the words after it into a new segment, where the micro model skips the
    // word the end timestamp covered ("see <|end|> next week" for "see you next week").
    const bool close = last.closes_segment && count == words.size() && closes_segments;
    const size_t end = close ? last.closing_index + 1 : last.token_end;
    committed_.insert(committed_.end(),
                      tokens.begin() + static_cast<std::ptrdiff_t>(committed_.size()),
                      tokens.begin() + static_cast<std::ptrdiff_t>(end));
    for (size_t i = 0; i < count; ++i) {
        if (repeats_last_committed(words[i].text)) {
            ++update.repeated_words;  // its tokens stay in the committed prefix
            continue;
        }
        update.committed_text += words[i].text;
        update.committed_words.push_back(stream_word(words[i], tokens, measured, floor_s));
        remember_committed(update.committed_words.back());
    }
}

bool StreamingTranscriber::align_times(std::vector<TimedWord>& words,
                                       std::span<const int32_t> tokens,
                                       const backend::HostTensor& window_mel,
                                       int64_t window_frames) {
    if (words.empty()) return false;
    // The text of the whole window, its committed words too (the warp spreads all of the
    // window's text over all of its audio), and where each of `tokens` falls in it.
    std::vector<int32_t> text;
    std::vector<size_t> text_index(tokens.size(), 0);
    for (size_t i = 0; i < tokens.size(); ++i) {
        text_index[i] = text.size();
        if (tokens[i] < tok_.specials().eot) text.push_back(tokens[i]);
    }
    // SOT, language, task, <|notimestamps|>, the text and EOT must fit the decoder.
    if (text.empty() || static_cast<int64_t>(text.size()) + 5 > model_.max_tokens()) return false;
    const std::vector<AlignedWord> aligned = align_words(
        model_, tok_, window_mel, language_, text, {}, window_frames, options_.alignment_heads);
    if (aligned.empty()) return false;
    // aligned[a] holds text tokens [first[a], first[a + 1]). A timed word starts where the
    // aligned word holding its first text token starts and ends where the one holding its last
    // ends (the alignment splits punctuation off, the timed words keep it).
    std::vector<size_t> first;
    size_t at = 0;
    for (const AlignedWord& word : aligned) {
        first.push_back(at);
        at += word.tokens.size();
    }
    auto holding = [&](size_t text_token) -> const AlignedWord& {
        const auto after = std::upper_bound(first.begin(), first.end(), text_token);
        return aligned[static_cast<size_t>(after - first.begin()) - 1];
    };
    const int32_t ts_begin = tok_.specials().timestamp_begin;
    for (TimedWord& word : words) {
        const double start_s = holding(text_index[word.token_begin]).start_s;
        word.end_s = holding(text_index[word.token_end - 1]).end_s;
        // The warp starts every window's text at the window's start (openai's alignment does
        // too, and fixes its first words after the fact), so a word that opens a segment starts
        // no earlier than the segment's start timestamp, which the model put there.
        const bool opens_segment = word.token_begin > 0 && tokens[word.token_begin - 1] >= ts_begin;
        if (opens_segment) {
            const double segment_start_s =
                static_cast<double>(tokens[word.token_begin - 1] - ts_begin) * timestamp_step_s;
            word.start_s =
                segment_start_s < word.end_s ? std::max(start_s, segment_start_s) : start_s;
        } else {
            word.start_s = start_s;
        }
    }
    return true;
}

bool StreamingTranscriber::repeats_last_committed(const std::string& text) const {
    if (recent_committed_.empty()) return false;
    const std::string& before = recent_committed_.back().text;
    if (before.empty() || std::isalnum(static_cast<unsigned char>(before.back())) == 0) {
        return false;  // "No, no": punctuation between them says the speaker said it twice
    }
    const std::string word = comparable_word(text);
    return !word.empty() && word == comparable_word(before);
}

void StreamingTranscriber::remember_committed(const StreamWord& word) {
    committed_end_s_ = std::max(committed_end_s_, word.end_s);
    recent_committed_.push_back(word);
    if (recent_committed_.size() > kMaxRepeatedWords) {
        recent_committed_.erase(recent_committed_.begin());
    }
}

// How many of the hypothesis's first words were already committed: the largest n such that
// words [skip, skip + n) equal the last n committed words (comparable_word forms), for skip 0 or
// 1 (a word cut at the window start may come out as junk before them); skip + n, or 0.
size_t StreamingTranscriber::repeated_prefix(const std::vector<TimedWord>& words) const {
    for (size_t skip = 0; skip < 2 && skip < words.size(); ++skip) {
        const size_t most = std::min(recent_committed_.size(), words.size() - skip);
        for (size_t n = most; n > 0; --n) {
            const size_t from = recent_committed_.size() - n;
            bool same = true;
            for (size_t i = 0; i < n && same; ++i) {
                const std::string committed = comparable_word(recent_committed_[from + i].text);
                same = !committed.empty() && committed == comparable_word(words[skip + i].text);
            }
            if (same) return skip + n;
        }
    }
    return 0;
}

void StreamingTranscriber::move_window_past_segments() {
    const int32_t ts_begin = tok_.specials().timestamp_begin;
    const int32_t eot = tok_.specials().eot;
    size_t cut = committed_.size();
    for (size_t k = committed_.size(); k-- > 1;) {
        if (committed_[k] >= ts_begin && committed_[k - 1] < eot) {
            cut = k;
            break;
        }
    }
    if (cut == committed_.size()) return;
    int32_t cut_steps = committed_[cut] - ts_begin;
    const int64_t window_frames = static_cast<int64_t>(window_.size()) / mels_;
    int64_t cut_frames = std::min<int64_t>(cut_steps * kFramesPerTimestamp, window_frames);
    if (cut_frames <= 0) return;
    if (options_.use_vad) {
        // Only into a pause, never inside a sentence: a window that opens mid-sentence is not
        // what a model saw in training, and the micro model then says words twice ("the new new
        // phone"). The window starts where the pause starts; without one it stays (a pause or
        // a full window drops it later). Text committed after the segment keeps it too.
        for (size_t k = cut + 1; k < committed_.size(); ++k) {
            if (committed_[k] < eot) return;
        }
        const int64_t last_start = std::min(cut_frames + kMoveSlackFrames, window_frames);
        int64_t pause_start = -1;
        int64_t run = 0;
        for (int64_t f = cut_frames; f < window_frames; ++f) {
            run = window_speech_[static_cast<size_t>(f)] != 0 ? 0 : run + 1;
            if (run == 1 && f > last_start) break;
            if (run >= kMovePauseFrames) {
                pause_start = f + 1 - run;
                break;
            }
        }
        if (pause_start < 0) return;
        cut_frames = pause_start - pause_start % kFramesPerTimestamp;
        if (cut_frames <= 0) return;
        cut_steps = static_cast<int32_t>(cut_frames / kFramesPerTimestamp);
    }

    const std::vector<int32_t> done = text_tokens(std::span(committed_).first(cut + 1));
    prompt_.insert(prompt_.end(), done.begin(), done.end());
    std::vector<int32_t> rest(committed_.begin() + static_cast<std::ptrdiff_t>(cut) + 1,
                              committed_.end());
    for (int32_t& id : rest) {
        if (id >= ts_begin) id = std::max(ts_begin, id - cut_steps);
    }
    committed_ = std::move(rest);
    window_.erase(window_.begin(), window_.begin() + cut_frames * mels_);
    window_speech_.erase(window_speech_.begin(), window_speech_.begin() + cut_frames);
    window_start_frame_ += cut_frames;
    // The new start is the model's end timestamp, which may fall inside the segment's last word.
    check_repeats_ = true;
    const auto cap = static_cast<size_t>(std::max(options_.prompt_max_tokens, 0));
    if (prompt_.size() > cap) {
        prompt_.erase(prompt_.begin(), prompt_.end() - static_cast<std::ptrdiff_t>(cap));
    }
}

void StreamingTranscriber::drop_window(int64_t keep_frames) {
    check_repeats_ = false;
    const std::vector<int32_t> done = text_tokens(committed_);
    prompt_.insert(prompt_.end(), done.begin(), done.end());
    committed_.clear();
    // Speech that a pause committed is never heard again (a quick pause comes soon after it).
    if (paused_speech_frame_ >= 0) {
        keep_frames = std::min(keep_frames, total_frames_ - 1 - paused_speech_frame_);
    }
    const int64_t window_frames = static_cast<int64_t>(window_.size()) / mels_;
    const int64_t drop = std::max<int64_t>(window_frames - std::max<int64_t>(keep_frames, 0), 0);
    window_.erase(window_.begin(), window_.begin() + drop * mels_);
    window_speech_.erase(window_speech_.begin(), window_speech_.begin() + drop);
    window_start_frame_ += drop;
    agreement_.reset();
    const auto cap = static_cast<size_t>(std::max(options_.prompt_max_tokens, 0));
    if (prompt_.size() > cap) {
        prompt_.erase(prompt_.begin(), prompt_.end() - static_cast<std::ptrdiff_t>(cap));
    }
}

StreamUpdate StreamingTranscriber::run(bool final, const std::atomic<bool>* cancel) {
    const auto started = std::chrono::steady_clock::now();
    StreamUpdate update;
    update.index = updates_++;
    update.final = final;
    update.word_timing = word_timing_;
    update.window_start_s = seconds(window_start_frame_);
    update.audio_end_s = seconds(total_frames_);
    frames_at_last_update_ = total_frames_;
    auto finish_update = [&]() {
        transcript_ += update.committed_text;
        update.engine_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
        if (update.gate == UpdateGate::decoded || update.gate == UpdateGate::no_speech) {
            engine_ms_mean_ =
                engine_ms_mean_ < 0.0
                    ? update.engine_ms
                    : engine_ms_mean_ + kEngineMeanWeight * (update.engine_ms - engine_ms_mean_);
            interval_frames_ = paced_update_frames(engine_ms_mean_, options_);
        }
        return update;
    };

    // Commits the previous hypothesis's tentative words as they stand (a pause, the end).
    auto commit_tentative = [&]() {
        if (tentative_words_.empty()) return;
        for (const StreamWord& word : tentative_words_) {
            if (repeats_last_committed(word.text)) {
                ++update.repeated_words;
                continue;
            }
            update.committed_text += word.text;
            update.committed_words.push_back(word);
            remember_committed(word);
        }
        committed_.insert(committed_.end(), tentative_text_tokens_.begin(),
                          tentative_text_tokens_.end());
        tentative_words_.clear();
        tentative_text_tokens_.clear();
        update.forced_commit = true;
    };

    const int64_t window_frames = static_cast<int64_t>(window_.size()) / mels_;
    if (window_frames == 0) {
        update.gate = UpdateGate::empty;
        if (final) commit_tentative();
        return finish_update();
    }
    // No speech in the window, or none since the speech a pause committed (the frames kept for
    // the next word's onset are the VAD's hangover of it).
    if (last_speech_frame_ < window_start_frame_ || last_speech_frame_ <= paused_speech_frame_) {
        update.gate = UpdateGate::silence;
        commit_tentative();
        drop_window(final ? 0 : kOnsetKeepFrames);
        return finish_update();
    }

    // [N][Mels] raw -> [1, Mels, Frames] normalized and padded
    normalize_(window_, frames_, mel_);
    const backend::HostTensor window_mel = backend::HostTensor::f32({1, mels_, frames_}, mel_);
    model_.listen(window_mel);
    if (language_token_ < 0 && tok_.multilingual()) {
        const LanguageGuess guess = detect_listened_language(model_, tok_);
        language_token_ = guess.token;
        language_ = guess.code;
    }

    WindowSetup setup = make_window_setup(tok_, options_.decoding, language_token_, prompt_, "",
                                          model_.max_tokens());
    const int sample_len = std::max(setup.sample_len, 1);
    const int max_new = std::min<int>(
        sample_len, options_.min_new_tokens +
                        static_cast<int>(options_.new_tokens_per_s * seconds(window_frames)));
    if (static_cast<int64_t>(setup.initial_tokens.size() + committed_.size()) + max_new >=
        model_.max_tokens()) {
        // No room for prompt and committed tokens together: decode without the prompt.
        setup = make_window_setup(tok_, options_.decoding, language_token_, {}, "",
                                  model_.max_tokens());
    }
    const size_t forced_begin = setup.initial_tokens.size();
    setup.initial_tokens.insert(setup.initial_tokens.end(), committed_.begin(), committed_.end());
    Continuation continuation = decode_continuation(model_, setup, forced_begin, max_new, cancel);
    update.no_speech_prob = continuation.no_speech_prob;
    update.new_tokens = static_cast<int>(continuation.tokens.size());
    update.gate = UpdateGate::decoded;
    if (continuation.cancelled) {
        update.gate = UpdateGate::cancelled;
        if (final) {
            commit_tentative();
            drop_window(0);
        }
        return finish_update();
    }
    if (committed_.empty() && continuation.no_speech_prob > options_.decoding.no_speech_threshold &&
        continuation.avg_logprob < options_.decoding.logprob_threshold) {
        continuation.tokens.clear();  // §5.5: silence, whatever was sampled
        update.gate = UpdateGate::no_speech;
    }

    std::vector<int32_t> tokens = committed_;  // committed + continuation, window-relative
    tokens.insert(tokens.end(), continuation.tokens.begin(), continuation.tokens.end());
    // How sure the decoder was of each token it sampled now (the committed ones were forced).
    std::vector<const TokenProbability*> measured(tokens.size(), nullptr);
    for (size_t i = 0; i < continuation.probabilities.size(); ++i) {
        measured[committed_.size() + i] = &continuation.probabilities[i];
    }
    const WordVocabulary vocabulary{
        .timestamp_begin = tok_.specials().timestamp_begin,
        .eot = tok_.specials().eot,
        .decode_text = [this](std::span<const int32_t> ids) { return tok_.decode_text(ids); }};
    std::vector<TimedWord> words =
        split_timed_words(tokens, committed_.size(), vocabulary, seconds(window_frames));
    if (check_repeats_ && committed_.empty() && !words.empty()) {
        // The first hypothesis of a window restarted inside speech (a full window, or a start
        // moved to a segment's end timestamp): words it opens with that repeat the last
        // committed ones were heard twice. They join the committed prefix (the decoder is forced
        // through them from now on) without being committed again.
        check_repeats_ = false;
        const size_t n = repeated_prefix(words);
        if (n > 0) {
            const TimedWord& last = words[n - 1];
            const size_t end = last.closes_segment ? last.closing_index + 1 : last.token_end;
            committed_.assign(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(end));
            words =
                split_timed_words(tokens, committed_.size(), vocabulary, seconds(window_frames));
            update.repeated_words = static_cast<int>(n);
        }
    }

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
    const size_t agreed = agreement_.agree(words, limit);
    const double silence_s = options_.use_vad ? seconds(trailing_silence_frames) : 0.0;
    bool pause = options_.use_vad && silence_s >= options_.pause_commit_s;
    if (options_.use_vad && !pause && silence_s >= options_.quick_pause_s) {
        // A quick pause: the model's own end of the speech agrees with the VAD's.
        const double vad_end_s = seconds(last_speech_frame_ + 1 - window_start_frame_);
        pause = words.empty() ||
                (words.back().closes_segment && words.back().end_s <= vad_end_s + kPauseAgreementS);
    }
    const bool full = room_frames() <= interval_frames_;
    size_t count = agreed;
    if (final || pause) {
        count = words.size();
    } else if (full) {
        count = std::max(agreed, words.empty() ? size_t{0} : words.size() - 1);
    }
    update.forced_commit = count > agreed;
    // The words as shown, retimed by alignment; the rules above and below keep the segment-based
    // times of `words` (a window restarted at a word, a pause the model's end timestamp confirms).
    std::vector<TimedWord> shown = words;
    update_timing_ =
        word_timing_ == WordTiming::aligned && align_times(shown, tokens, window_mel, window_frames)
            ? WordTiming::aligned
            : WordTiming::estimated;
    double floor_s = committed_end_s_;
    commit_words(shown, count, tokens, measured, final || pause || full, floor_s, update);

    tentative_words_.clear();
    tentative_text_tokens_.clear();
    for (size_t i = count; i < words.size(); ++i) {
        update.tentative_text += words[i].text;
        tentative_words_.push_back(stream_word(shown[i], tokens, measured, floor_s));
        tentative_text_tokens_.insert(
            tentative_text_tokens_.end(),
            tokens.begin() + static_cast<std::ptrdiff_t>(words[i].token_begin),
            tokens.begin() + static_cast<std::ptrdiff_t>(words[i].token_end));
    }
    update.tentative_words = tentative_words_;

    if (final || pause) {
        // Everything heard is committed: the next window starts after it.
        paused_speech_frame_ = last_speech_frame_;
        drop_window(final ? 0 : kOnsetKeepFrames);
        // A quick pause may come while the VAD hears a quiet word ending as silence: the next
        // window may start in that ending, and its first words may repeat the committed ones.
        check_repeats_ = !final && silence_s < options_.pause_commit_s;
    } else if (full) {
        // Everything but the last word, which may be cut off by the window's end: the next
        // window starts at that word (its estimated start) and hears it whole.
        if (count < words.size()) {
            const int64_t word_frame =
                static_cast<int64_t>(std::floor(words[count].start_s * kFramesPerSecond));
            const int64_t frames_now = static_cast<int64_t>(window_.size()) / mels_;
            // At least one update's worth goes, so the window always makes room.
            const int64_t drop = std::max(std::clamp<int64_t>(word_frame, 0, frames_now),
                                          std::min(interval_frames_, frames_now));
            drop_window(frames_now - drop);
            tentative_words_.clear();  // shown in this update, heard again by the next
            tentative_text_tokens_.clear();
            check_repeats_ = true;
        } else {
            drop_window(0);
        }
    } else {
        move_window_past_segments();
    }
    return finish_update();
}

}  // namespace earshot::decoding
