// Whole-file transcription: the seek loop over decode_with_fallback on a DecoderModel.
#include "earshot/engine/decoding/long_form.h"

#include <algorithm>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "earshot/engine/decoding/fallback.h"
#include "earshot/engine/decoding/language_detection.h"
#include "earshot/engine/decoding/seek_loop.h"
#include "earshot/engine/decoding/speech_activity.h"
#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "python_strip.h"

namespace earshot::decoding {
Transcript transcribe(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                      const backend::HostTensor& mel, int64_t content_frames,
                      const TranscribeOptions& options,
                      const std::function<void(double fraction)>& progress,
                      const std::atomic<bool>* cancel, const NewSegmentsFn& on_segments) {
    if (mel.shape().size() != 2 || mel.dim(0) != model.mels()) {
        throw std::invalid_argument("transcribe: mel must be [" + std::to_string(model.mels()) +
                                    ", N], got " + mel.shape_str());
    }
    TensorMelSource source(mel, content_frames);
    return transcribe(model, tokenizer, source, options, progress, cancel, on_segments);
}

Transcript transcribe(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                      MelWindowSource& mel, const TranscribeOptions& options,
                      const std::function<void(double fraction)>& progress,
                      const std::atomic<bool>* cancel, const NewSegmentsFn& on_segments) {
    if (mel.mels() != model.mels()) {
        throw std::invalid_argument("transcribe: mel must have " + std::to_string(model.mels()) +
                                    " mels, got " + std::to_string(mel.mels()));
    }
    DecodingOptions decoding = options.decoding;
    if (decoding.language.empty()) {
        // Once per file on its first window of the silence-padded mel, as openai transcribe()
        // does (§5.9, §1.6); English-only vocabularies are "en" without running the model.
        decoding.language =
            tokenizer.multilingual()
                ? detect_language(model, tokenizer, mel.window(0, model.frames())).code
                : "en";
    }
    std::mt19937_64 rng(decoding.seed);

    SegmentVocabulary vocabulary;
    vocabulary.timestamp_begin = tokenizer.specials().timestamp_begin;
    vocabulary.eot = tokenizer.specials().eot;
    vocabulary.decode_text = [&tokenizer](std::span<const int32_t> ids) {
        return tokenizer.decode_text(ids);
    };

    SeekLoopOptions loop;
    loop.frames = model.frames();
    if (!python_strip(options.initial_prompt).empty()) {
        loop.prompt_tokens =
            tokenizer.encode(" " + std::string(python_strip(options.initial_prompt)));
    }
    loop.condition_on_previous_text = options.condition_on_previous_text;
    loop.no_speech_threshold = decoding.no_speech_threshold;
    loop.logprob_threshold = decoding.logprob_threshold;

    const WindowDecodeFn decode_window = [&](const backend::HostTensor& window,
                                             std::span<const int32_t> prompt) {
        return decode_with_fallback(model, tokenizer, window, prompt, {}, decoding, rng);
    };
    if (decoding.timestamps) {
        // A window that opens a segment and says nothing of it where it cannot move on
        // (seek_loop.h): its speech, without timestamps.
        DecodingOptions text_only = decoding;
        text_only.timestamps = false;
        loop.decode_text_only = [&model, &tokenizer, text_only, &rng](
                                    const backend::HostTensor& window,
                                    std::span<const int32_t> prompt) {
            return decode_with_fallback(model, tokenizer, window, prompt, {}, text_only, rng);
        };
    }

    // Each window's segments, with their words when asked for and their times snapped to the
    // speech, go to `on_segments` and into the transcript as they are. With snapping, the last
    // segment with text of a window waits for the next window: where its end may move depends on
    // where the next segment starts.
    std::vector<SpeechRun> runs;
    if (options.snap_times_to_speech && mel.speech_activity() != nullptr) {
        runs = speech_runs(*mel.speech_activity(), options.speech_snap.max_gap_s);
    }
    double reported_end_s = 0.0;   // of the last reported segment with text
    std::vector<Segment> waiting;  // not yet reported, unsnapped
    std::vector<Segment> finished;
    auto report = [&](std::vector<Segment> segments) {
        for (const Segment& segment : segments) {
            if (!is_blank_segment(segment)) {
                reported_end_s = segment.end_s;
            }
        }
        if (segments.empty()) return;
        if (on_segments) on_segments(segments);
        finished.insert(finished.end(), std::make_move_iterator(segments.begin()),
                        std::make_move_iterator(segments.end()));
    };
    auto finish = [&](std::vector<Segment> segments) {
        if (runs.empty()) {
            report(std::move(segments));
            return;
        }
        waiting.insert(waiting.end(), std::make_move_iterator(segments.begin()),
                       std::make_move_iterator(segments.end()));
        size_t hold = waiting.size();  // the last segment with text, and what follows it
        while (hold > 0 && is_blank_segment(waiting[hold - 1])) {
            --hold;
        }
        if (hold == 0) {  // only blank segments, which keep their times
            report(std::move(waiting));
            waiting.clear();
            return;
        }
        --hold;
        std::vector<Segment> snapped = waiting;
        snap_segment_times(snapped, runs, options.speech_snap, reported_end_s);
        snapped.resize(hold);
        waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(hold));
        report(std::move(snapped));
    };
    auto flush = [&] {
        snap_segment_times(waiting, runs, options.speech_snap, reported_end_s);
        report(std::move(waiting));
        waiting.clear();
    };

    Transcript transcript;
    if (options.word_timestamps) {
        WindowWordAligner aligner(model, tokenizer, mel, decoding.language,
                                  options.alignment_heads);
        const NewSegmentsFn add_words = [&](std::span<const Segment> added) {
            std::vector<Segment> segments(added.begin(), added.end());
            aligner.add_words(segments);
            finish(std::move(segments));
        };
        transcript.segments = run_seek_loop(aligner.source(), vocabulary, loop, decode_window,
                                            progress, cancel, add_words);
    } else {
        const NewSegmentsFn add = [&](std::span<const Segment> added) {
            finish(std::vector<Segment>(added.begin(), added.end()));
        };
        transcript.segments =
            run_seek_loop(mel, vocabulary, loop, decode_window, progress, cancel, add);
    }
    flush();
    if (finished.size() == transcript.segments.size()) transcript.segments = std::move(finished);
    transcript.language = decoding.language;
    for (const Segment& segment : transcript.segments) transcript.text += segment.text;
    return transcript;
}

}  // namespace earshot::decoding
