// openai transcribe()'s seek loop (reference §5.5, §5.6, §5.8).
#include "earshot/engine/decoding/seek_loop.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "python_strip.h"

namespace earshot::decoding {
namespace {

using backend::HostTensor;

constexpr double kSecondsPerFrame = 0.01;   // hop 160 at 16 kHz (reference §1.1)
constexpr int64_t kFramesPerTimestamp = 2;  // one encoder position = 0.02 s (§1.1)
constexpr double kSecondsPerTimestamp = 0.02;
// Where the next window starts in a pause (see take_window): at most this long before the next
// sentence's start, as the micro model's training windows start at most 1 s before their speech
// (resources/models/micro/README.md); and a segment ending this close to a full window's end is
// taken as cut there (end timestamps run 0.2-0.4 s early).
constexpr double kResumeLeadS = 0.5;
constexpr double kCutEdgeS = 0.4;
// The speech a window must hold after a lone timestamp to be decoded again without timestamps
// (see needs_text_only): about one short word.
constexpr double kTextOnlySpeechS = 0.2;
// A pause this long in the file's speech activity ends an unfinished segment that a full window
// cannot move past (see take_window): sentences in dictation and recordings are set apart by
// more, the pauses inside one by less.
constexpr double kSentencePauseS = 1.0;

// The first pause of at least kSentencePauseS in `activity` after the speech that starts at or
// after `from_s`, with speech after it before `to_s`: {pause start, next speech start} in
// seconds; nullopt when there is none.
std::optional<std::pair<double, double>> sentence_pause(const SpeechActivity& activity,
                                                        double from_s, double to_s) {
    if (!(activity.hop_s > 0.0)) return std::nullopt;
    const auto hops = static_cast<int64_t>(activity.loud.size());
    const int64_t end = std::min(hops, static_cast<int64_t>(to_s / activity.hop_s));
    const auto pause_hops = static_cast<int64_t>(std::ceil(kSentencePauseS / activity.hop_s));
    bool heard = false;
    int64_t quiet = 0;
    for (int64_t hop = std::max<int64_t>(static_cast<int64_t>(from_s / activity.hop_s), 0);
         hop < end; ++hop) {
        if (activity.loud[static_cast<size_t>(hop)] == 0) {
            ++quiet;
            continue;
        }
        if (heard && quiet >= pause_hops) {
            return std::make_pair(static_cast<double>(hop - quiet) * activity.hop_s,
                                  static_cast<double>(hop) * activity.hop_s);
        }
        heard = true;
        quiet = 0;
    }
    return std::nullopt;
}

// The frame offset, from a window's start, where the next window starts when the last kept
// segment ends at timestamp index `end_pos` and the next speech starts at `start_pos` (or the
// window's end): in the pause between them, past its middle and at most kResumeLeadS before the
// speech, never before `end_pos` (openai's seek point).
int64_t resume_at(int64_t end_pos, int64_t start_pos) {
    const auto lead = static_cast<int64_t>(kResumeLeadS / kSecondsPerTimestamp + 0.5);
    return std::max({end_pos, (end_pos + start_pos) / 2, start_pos - lead}) * kFramesPerTimestamp;
}

// mel [Mels, N] frames [seek, seek + frames) -> [1, Mels, frames], 0.0 only past N. A last window
// holding `size` < frames frames of the file is padded with the mel's own frames after the
// content: the log-mel of the silence the caller appended to the samples (silence padding, as the
// micro model was trained, openai before 2023-12 and whisper.cpp; current openai pads with 0.0,
// reference §1.6, §9.1).
HostTensor cut_window(const HostTensor& mel, int64_t seek, int64_t frames) {
    const int64_t mels = mel.dim(0);
    const int64_t total = mel.dim(1);
    HostTensor window = HostTensor::f32({1, mels, frames}, 0.0F);
    const std::span<const float> source = mel.f32_values();
    const std::span<float> target = window.f32_values();
    const int64_t count = std::min(frames, total - seek);
    for (int64_t m = 0; m < mels; ++m) {
        const auto from = source.begin() + m * total + seek;
        std::copy(from, from + count, target.begin() + m * frames);
    }
    return window;
}

class SeekLoop {
public:
    SeekLoop(const SegmentVocabulary& vocabulary, const SeekLoopOptions& options)
        : vocabulary_(vocabulary), options_(options), all_tokens_(options.prompt_tokens) {}

    bool is_timestamp(int32_t token) const { return token >= vocabulary_.timestamp_begin; }

    // §5.5: the window is silence and is skipped whole.
    bool skipped(const WindowResult& result) const {
        return result.no_speech_prob > options_.no_speech_threshold &&
               !(result.avg_logprob > options_.logprob_threshold);
    }

    // The tokens are one timestamp, and the window cannot move on to it (take_window): the
    // speech the model heard begin there would be a blank segment (see run_seek_loop). Where
    // the file's speech activity is known, there must be speech after the timestamp in the
    // window's audio (a window of silence padding alone is not decoded again: the model would
    // make words up).
    bool needs_text_only(const WindowResult& result, int64_t seek, int64_t size,
                         const SpeechActivity* activity) const {
        if (!options_.decode_text_only || skipped(result) || result.tokens.size() != 1 ||
            !is_timestamp(result.tokens.front())) {
            return false;
        }
        const int64_t start = result.tokens.front() - vocabulary_.timestamp_begin;
        const bool full = options_.resume_in_pauses && size == options_.frames;
        if (full && start > 0) return false;
        if (activity == nullptr || !(activity->hop_s > 0.0)) return true;
        const double from_s = static_cast<double>(seek) * kSecondsPerFrame +
                              static_cast<double>(start) * kSecondsPerTimestamp;
        const double to_s = static_cast<double>(seek + size) * kSecondsPerFrame;
        const auto hops = static_cast<int64_t>(activity->loud.size());
        const int64_t first =
            std::clamp<int64_t>(static_cast<int64_t>(from_s / activity->hop_s), 0, hops);
        const int64_t last =
            std::clamp<int64_t>(static_cast<int64_t>(to_s / activity->hop_s), first, hops);
        const auto loud =
            std::count_if(activity->loud.begin() + first, activity->loud.begin() + last,
                          [](uint8_t hop) { return hop != 0; });
        return static_cast<double>(loud) * activity->hop_s >= kTextOnlySpeechS;
    }

    // A segment over [start_s, end_s] as the tokens say (before any clamping): blank when
    // openai's transcribe() would clear it, i.e. start == end or text that strips to nothing.
    // Only the displayed times are clamped afterwards (see take_window).
    Segment make_segment(double start_s, double end_s, std::span<const int32_t> tokens,
                         const WindowResult& result) const {
        Segment segment;
        segment.start_s = start_s;
        segment.end_s = end_s;
        segment.tokens.assign(tokens.begin(), tokens.end());
        // `tokens` is a part of result.tokens; its log-probabilities are the same part.
        if (result.token_logprobs.size() == result.tokens.size() && !tokens.empty()) {
            const auto from = static_cast<size_t>(tokens.data() - result.tokens.data());
            segment.token_logprobs.assign(
                result.token_logprobs.begin() + static_cast<std::ptrdiff_t>(from),
                result.token_logprobs.begin() + static_cast<std::ptrdiff_t>(from + tokens.size()));
        }
        std::vector<int32_t> text_tokens;
        for (int32_t token : tokens) {
            if (token < vocabulary_.eot) text_tokens.push_back(token);
        }
        segment.text = vocabulary_.decode_text(text_tokens);
        segment.avg_logprob = result.avg_logprob;
        segment.no_speech_prob = result.no_speech_prob;
        segment.temperature = result.temperature;
        segment.compression_ratio = result.compression_ratio;
        return segment;
    }

    // One decoded window at `seek` holding `size` frames of audio: appends its segments and
    // returns how far seek advances, in [1, size]. `text_only`: the window decoded again without
    // timestamps when needs_text_only(result, size), else null.
    int64_t take_window(const WindowResult& result, int64_t seek, int64_t size,
                        std::vector<Segment>& segments, const WindowResult* text_only,
                        const SpeechActivity* activity) {
        const double time_offset_s = static_cast<double>(seek) * kSecondsPerFrame;
        const double window_end_s = time_offset_s + static_cast<double>(size) * kSecondsPerFrame;
        if (skipped(result)) return size;

        const std::vector<int32_t>& tokens = result.tokens;
        const auto count = tokens.size();
        auto ts_pos = [&](int32_t token) {
            return static_cast<int64_t>(token) - vocabulary_.timestamp_begin;
        };
        auto clamp_time = [&](double t) { return std::clamp(t, time_offset_s, window_end_s); };
        const bool single_ending =
            count >= 2 && !is_timestamp(tokens[count - 2]) && is_timestamp(tokens[count - 1]);
        std::vector<size_t> slices;
        for (size_t i = 1; i < count; ++i) {
            if (is_timestamp(tokens[i - 1]) && is_timestamp(tokens[i])) slices.push_back(i);
        }

        std::vector<Segment> current;
        auto seconds = [&](int32_t token) {
            return time_offset_s + static_cast<double>(ts_pos(token)) * kSecondsPerTimestamp;
        };
        auto add_segments = [&](size_t end) {  // the complete segments in tokens[0, end)
            size_t last_slice = 0;
            for (size_t slice : slices) {
                if (slice > end) break;
                const std::span<const int32_t> part(tokens.data() + last_slice, slice - last_slice);
                current.push_back(
                    make_segment(seconds(part.front()), seconds(part.back()), part, result));
                last_slice = slice;
            }
        };
        // Deviations from §5.8 for a window that holds a full window of audio (the last window
        // holds the rest of the file and keeps openai's rules), so that the next window starts in
        // the pause before a sentence, as a model sees its windows in training (Whisper's
        // convention: a sentence the window cuts has a start timestamp and no end one), never
        // inside one:
        // - tokens ending in an unfinished segment (<|te|><|ts|> text, or <|ts|> text with no
        //   segment before it): openai resumes at <|te|> (or, without a pair, keeps the text
        //   with the times [offset, offset + ts] and moves a whole window); here the next window
        //   starts between <|te|> and <|ts|> (resume_at), and an unfinished segment alone is
        //   re-decoded from its start unless it starts at <|0.00|>;
        // - a last segment that ends within kCutEdgeS of the window's end may be cut there
        //   (models close a cut sentence at the edge): it is re-decoded like an unfinished one;
        // - a single timestamp ending: openai moves a whole window, which cuts a sentence that
        //   begins in the window's last moments (the model does not say one it barely hears);
        //   here the next window starts at most kResumeLeadS before the window's end.
        const bool full = options_.resume_in_pauses && size == options_.frames;
        const int64_t end_pos = size / kFramesPerTimestamp;  // the window's end as a timestamp
        const bool ends_at_edge =
            full && count >= 1 && is_timestamp(tokens[count - 1]) &&
            static_cast<double>(end_pos - ts_pos(tokens[count - 1])) * kSecondsPerTimestamp <=
                kCutEdgeS;
        const bool open_alone =
            slices.empty() && count >= 1 && is_timestamp(tokens.front()) &&
            (count == 1 || !is_timestamp(tokens.back()) || (single_ending && ends_at_edge));
        int64_t advance = size;
        if (!slices.empty() && single_ending && ends_at_edge) {
            const size_t last = slices.back();  // the last segment is tokens[last, count)
            add_segments(last);
            advance = resume_at(ts_pos(tokens[last - 1]), ts_pos(tokens[last]));
        } else if (!slices.empty()) {
            if (single_ending) slices.push_back(count);
            add_segments(count);
            const size_t last = slices.back();
            if (!single_ending) {
                advance = full ? resume_at(ts_pos(tokens[last - 1]), ts_pos(tokens[last]))
                               : ts_pos(tokens[last - 1]) * kFramesPerTimestamp;
            } else if (full) {
                advance = resume_at(ts_pos(tokens[count - 1]), end_pos);
            }
        } else if (open_alone) {
            const int64_t start = ts_pos(tokens.front());
            if (full && start > 0) {
                advance = resume_at(0, start);
            } else if (text_only != nullptr && !skipped(*text_only)) {
                // The speech the model heard begin at <|ts|>, as the window says it without
                // timestamps: one segment from ts to the end of the window's audio.
                current.push_back(make_segment(seconds(tokens.front()), window_end_s,
                                               text_only->tokens, *text_only));
            } else {
                // A full window's unfinished segment at <|0.00|> cannot move on; openai keeps it
                // to the window's end and moves a whole window, and a sentence after a pause in
                // that window, which the model did not say, was lost. Where the file's speech
                // activity shows such a pause, the segment ends there and the next window starts
                // in it.
                double end_s = window_end_s;
                if (const auto pause =
                        full && activity != nullptr
                            ? sentence_pause(*activity, seconds(tokens.front()), window_end_s)
                            : std::nullopt) {
                    end_s = pause->first;
                    const double resume_s = std::max(pause->first, pause->second - kResumeLeadS);
                    advance = static_cast<int64_t>((resume_s - time_offset_s) / kSecondsPerFrame);
                }
                current.push_back(make_segment(seconds(tokens.front()), end_s, tokens, result));
            }
        } else {
            double duration_s = static_cast<double>(size) * kSecondsPerFrame;
            for (size_t i = count; i-- > 0;) {
                if (is_timestamp(tokens[i])) {
                    if (ts_pos(tokens[i]) != 0) {
                        duration_s = static_cast<double>(ts_pos(tokens[i])) * kSecondsPerTimestamp;
                    }
                    break;
                }
            }
            // Deviation: a segment that opens with a timestamp starts there (openai: at the
            // window's start, which can be up to max_initial_timestamp before its speech).
            const double start_s = count >= 1 && is_timestamp(tokens.front())
                                       ? seconds(tokens.front())
                                       : time_offset_s;
            current.push_back(make_segment(start_s, time_offset_s + duration_s, tokens, result));
            if (single_ending && full) advance = resume_at(ts_pos(tokens[count - 1]), end_pos);
        }
        // Guard (see long_form.h): §5.8 never moves back, but a pair at <|0.00|> would stall.
        if (advance < 1) advance = size;
        advance = std::min(advance, size);

        for (Segment& segment : current) {
            // openai tests the times the tokens give; a segment in the padding past the end of
            // the audio keeps its text and tokens (and extends the prompt), only its displayed
            // times are clamped to the audio the window holds.
            if (segment.start_s == segment.end_s || is_python_blank(segment.text)) {
                segment.text.clear();
                segment.tokens.clear();
                segment.token_logprobs.clear();
            }
            segment.seek_frames = seek;
            segment.start_s = clamp_time(segment.start_s);
            segment.end_s = clamp_time(segment.end_s);
            all_tokens_.insert(all_tokens_.end(), segment.tokens.begin(), segment.tokens.end());
            segments.push_back(std::move(segment));
        }
        if (!options_.condition_on_previous_text || result.temperature > 0.5) {
            prompt_reset_since_ = all_tokens_.size();
        }
        return advance;
    }

    std::span<const int32_t> prompt() const {
        return std::span<const int32_t>(all_tokens_).subspan(prompt_reset_since_);
    }

private:
    const SegmentVocabulary& vocabulary_;
    const SeekLoopOptions& options_;
    std::vector<int32_t> all_tokens_;  // initial prompt, then every kept segment's tokens
    size_t prompt_reset_since_ = 0;
};

}  // namespace

TensorMelSource::TensorMelSource(const HostTensor& mel, int64_t content_frames) : mel_(mel) {
    if (mel.shape().size() != 2) {
        throw std::invalid_argument("run_seek_loop: mel must be [Mels, N], got " + mel.shape_str());
    }
    content_frames_ = std::clamp<int64_t>(content_frames, 0, mel.dim(1));
}

int64_t TensorMelSource::mels() const { return mel_.dim(0); }

HostTensor TensorMelSource::window(int64_t seek, int64_t frames) {
    return cut_window(mel_, seek, frames);
}

std::vector<Segment> run_seek_loop(const HostTensor& mel, int64_t content_frames,
                                   const SegmentVocabulary& vocabulary,
                                   const SeekLoopOptions& options,
                                   const WindowDecodeFn& decode_window,
                                   const std::function<void(double fraction)>& progress,
                                   const std::atomic<bool>* cancel,
                                   const NewSegmentsFn& on_segments) {
    TensorMelSource source(mel, content_frames);
    return run_seek_loop(source, vocabulary, options, decode_window, progress, cancel, on_segments);
}

std::vector<Segment> run_seek_loop(MelWindowSource& mel, const SegmentVocabulary& vocabulary,
                                   const SeekLoopOptions& options,
                                   const WindowDecodeFn& decode_window,
                                   const std::function<void(double fraction)>& progress,
                                   const std::atomic<bool>* cancel,
                                   const NewSegmentsFn& on_segments) {
    if (options.frames < 1) throw std::invalid_argument("run_seek_loop: frames must be >= 1");
    const int64_t content_frames = std::max<int64_t>(mel.content_frames(), 0);

    SeekLoop loop(vocabulary, options);
    std::vector<Segment> segments;
    int64_t seek = 0;
    while (seek < content_frames) {
        if (cancel != nullptr && cancel->load()) break;
        const int64_t size = std::min(options.frames, content_frames - seek);
        const HostTensor window = mel.window(seek, options.frames);
        const WindowResult result = decode_window(window, loop.prompt());
        std::optional<WindowResult> text_only;
        if (loop.needs_text_only(result, seek, size, mel.speech_activity())) {
            text_only = options.decode_text_only(window, loop.prompt());
        }
        const size_t before = segments.size();
        const int64_t advance = loop.take_window(
            result, seek, size, segments, text_only ? &*text_only : nullptr, mel.speech_activity());
        if (advance < 1) {  // the loop's termination (see the guard in take_window)
            throw std::logic_error("run_seek_loop: seek did not advance at frame " +
                                   std::to_string(seek));
        }
        seek += advance;
        if (on_segments && segments.size() > before) {
            on_segments(std::span<const Segment>(segments).subspan(before));
        }
        if (progress) {
            progress(static_cast<double>(std::min(seek, content_frames)) /
                     static_cast<double>(content_frames));
        }
    }
    return segments;
}

}  // namespace earshot::decoding
