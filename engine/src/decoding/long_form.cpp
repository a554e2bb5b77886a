// Whole-file transcription: the seek loop over decode_with_fallback on a DecoderModel.
#include "earshot/engine/decoding/long_form.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "earshot/engine/decoding/fallback.h"
#include "earshot/engine/decoding/language_detection.h"
#include "earshot/engine/decoding/seek_loop.h"
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

    Transcript transcript;
    if (options.word_timestamps) {
        // Each window's segments get their words as soon as the loop reports them.
        WindowWordAligner aligner(model, tokenizer, mel, decoding.language,
                                  options.alignment_heads);
        std::vector<Segment> with_words;
        const NewSegmentsFn add_words = [&](std::span<const Segment> added) {
            std::vector<Segment> segments(added.begin(), added.end());
            aligner.add_words(segments);
            if (on_segments) on_segments(segments);
            with_words.insert(with_words.end(), segments.begin(), segments.end());
        };
        transcript.segments = run_seek_loop(aligner.source(), vocabulary, loop, decode_window,
                                            progress, cancel, add_words);
        if (with_words.size() == transcript.segments.size()) {
            transcript.segments = std::move(with_words);
        }
    } else {
        transcript.segments =
            run_seek_loop(mel, vocabulary, loop, decode_window, progress, cancel, on_segments);
    }
    transcript.language = decoding.language;
    for (const Segment& segment : transcript.segments) transcript.text += segment.text;
    return transcript;
}

}  // namespace earshot::decoding
