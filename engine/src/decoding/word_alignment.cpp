// Word times from cross-attention (openai's word_timestamps): the heads, the attention turned into
// a warp path and word times, and the segment bookkeeping. Written from word_alignment.h.
#include "earshot/engine/decoding/word_alignment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "earshot/engine/decoding/alignment_map.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::decoding {
namespace {

using backend::HostTensor;

// openai's sentence ends (add_word_timestamps).
constexpr std::string_view kSentenceEndMarks = ".\u3002!\uff01?\uff1f";

// Python's `word in kSentenceEndMarks`: a substring test (the empty string is in every one).
bool ends_sentence(std::string_view word) {
    return kSentenceEndMarks.find(word) != std::string_view::npos;
}

double round_to_centiseconds(double seconds) { return std::round(seconds * 100.0) / 100.0; }

}  // namespace

std::vector<backend::AttentionHead> default_alignment_heads(int64_t decoder_layers, int64_t heads) {
    std::vector<backend::AttentionHead> result;
    for (int64_t layer = decoder_layers / 2; layer < decoder_layers; ++layer) {
        for (int64_t head = 0; head < heads; ++head) result.push_back({layer, head});
    }
    return result;
}

std::vector<AlignedWord> align_from_cross_attention(const HostTensor& weights, size_t sot_length,
                                                    std::span<const int32_t> text_tokens,
                                                    std::span<const double> token_probabilities,
                                                    int64_t num_frames,
                                                    const DecodeTextFn& decode_text,
                                                    bool by_character) {
    const auto n_text = static_cast<int64_t>(text_tokens.size());
    if (!token_probabilities.empty() &&
        static_cast<int64_t>(token_probabilities.size()) != n_text) {
        throw std::invalid_argument("alignment: one probability per text token is needed");
    }
    const AlignmentMap map = alignment_map(weights, sot_length, n_text, num_frames);
    std::vector<double> jump_s;
    for (const int64_t position : map.jump_positions) {
        jump_s.push_back(static_cast<double>(position) / kAudioPositionsPerSecond);
    }

    std::vector<AlignedWord> words = split_word_tokens(text_tokens, decode_text, by_character);
    size_t boundary = 0;  // index of the word's first text token
    for (AlignedWord& word : words) {
        const size_t end = boundary + word.tokens.size();
        word.start_s = jump_s.at(boundary);
        word.end_s = jump_s.at(end);
        if (!token_probabilities.empty() && end > boundary) {
            double sum = 0.0;
            for (size_t k = boundary; k < end; ++k) sum += token_probabilities[k];
            word.probability = sum / static_cast<double>(end - boundary);
        }
        boundary = end;
    }
    return words;
}

HostTensor alignment_prefill(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                             const HostTensor& window_mel, const std::string& language,
                             std::span<const int32_t> text_tokens,
                             std::span<const backend::AttentionHead> heads, size_t& sot_length) {
    if (!model.keeps_cross_attention()) {
        throw std::logic_error("word times need cross-attention weights, which " +
                               model.backend_name() + " does not return");
    }
    const auto& sp = tokenizer.specials();
    std::vector<int32_t> tokens{sp.sot};
    if (tokenizer.multilingual()) {
        const int32_t language_token = tokenizer.language_token(language);
        if (language_token < 0) {
            throw std::invalid_argument("alignment: unknown language \"" + language + "\"");
        }
        tokens.push_back(language_token);
        tokens.push_back(sp.transcribe);
    }
    tokens.push_back(sp.notimestamps);
    sot_length = tokens.size();
    tokens.insert(tokens.end(), text_tokens.begin(), text_tokens.end());
    tokens.push_back(sp.eot);
    if (static_cast<int64_t>(tokens.size()) > model.max_tokens()) {
        throw std::invalid_argument("alignment: " + std::to_string(tokens.size()) +
                                    " tokens do not fit the decoder");
    }
    model.listen(window_mel);
    backend::CrossAttentionRequest request{heads, {}};
    model.prefill_keeping_cross_attention(
        HostTensor::i32({1, static_cast<int64_t>(tokens.size())}, tokens), request);
    return std::move(request.weights);
}

std::vector<AlignedWord> align_words(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                                     const HostTensor& window_mel, const std::string& language,
                                     std::span<const int32_t> text_tokens,
                                     std::span<const double> token_probabilities,
                                     int64_t num_frames,
                                     std::span<const backend::AttentionHead> heads) {
    if (text_tokens.empty()) return {};
    size_t sot_length = 0;
    const HostTensor weights =
        alignment_prefill(model, tokenizer, window_mel, language, text_tokens, heads, sot_length);
    const DecodeTextFn decode = [&tokenizer](std::span<const int32_t> ids) {
        return tokenizer.decode_text(ids);
    };
    return align_from_cross_attention(weights, sot_length, text_tokens, token_probabilities,
                                      num_frames, decode, splits_by_character(language));
}

void add_words_to_segments(std::span<Segment> segments, std::vector<AlignedWord> alignment,
                           double time_offset_s, int32_t eot, double& last_speech_s) {
    if (segments.empty()) return;
    std::vector<double> durations;
    for (const AlignedWord& word : alignment) {
        if (word.end_s - word.start_s != 0.0) durations.push_back(word.end_s - word.start_s);
    }
    double median = 0.0;
    if (!durations.empty()) {  // numpy's median: the mean of the middle two of an even count
        std::sort(durations.begin(), durations.end());
        const size_t n = durations.size();
        median = n % 2 == 1 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2.0;
    }
    median = std::min(0.7, median);
    const double max_duration = median * 2.0;

    // Long words next to a sentence end are clamped to max_duration.
    if (!durations.empty()) {
        for (size_t i = 1; i < alignment.size(); ++i) {
            AlignedWord& word = alignment[i];
            if (word.end_s - word.start_s <= max_duration) continue;
            if (ends_sentence(word.text)) {
                word.end_s = word.start_s + max_duration;
            } else if (ends_sentence(alignment[i - 1].text)) {
                word.start_s = word.end_s - max_duration;
            }
        }
    }
    merge_punctuations(alignment);

    size_t index = 0;
    for (Segment& segment : segments) {
        const auto text_count =
            static_cast<size_t>(std::count_if(segment.tokens.begin(), segment.tokens.end(),
                                              [eot](int32_t token) { return token < eot; }));
        size_t saved = 0;
        std::vector<Word> words;
        while (index < alignment.size() && saved < text_count) {
            const AlignedWord& timing = alignment[index];
            if (!timing.text.empty()) {
                words.push_back({timing.text, round_to_centiseconds(time_offset_s + timing.start_s),
                                 round_to_centiseconds(time_offset_s + timing.end_s),
                                 timing.probability});
            }
            saved += timing.tokens.size();
            ++index;
        }
        if (!words.empty()) {
            Word& head = words.front();
            // The first word after a pause is no longer than max_duration (nor the second).
            if (head.end_s - last_speech_s > median * 4.0 &&
                (head.end_s - head.start_s > max_duration ||
                 (words.size() > 1 && words[1].end_s - head.start_s > max_duration * 2.0))) {
                if (words.size() > 1 && words[1].end_s - words[1].start_s > max_duration) {
                    const double boundary =
                        std::max(words[1].end_s / 2.0, words[1].end_s - max_duration);
                    head.end_s = boundary;
                    words[1].start_s = boundary;
                }
                head.start_s = std::max(0.0, head.end_s - max_duration);
            }
            // The segment's own start wins over a first word that starts well before it.
            if (segment.start_s < head.end_s && segment.start_s - 0.5 > head.start_s) {
                head.start_s = std::max(0.0, std::min(head.end_s - median, segment.start_s));
            } else {
                segment.start_s = head.start_s;
            }
            Word& tail = words.back();
            if (segment.end_s > tail.start_s && segment.end_s + 0.5 < tail.end_s) {
                tail.end_s = std::max(tail.start_s + median, segment.end_s);
            } else {
                segment.end_s = tail.end_s;
            }
            last_speech_s = segment.end_s;
        }
        segment.words = std::move(words);
    }
}

HostTensor WindowWordAligner::Recorder::window(int64_t seek, int64_t frames) {
    last_window = inner_.window(seek, frames);
    last_seek = seek;
    return last_window;
}

WindowWordAligner::WindowWordAligner(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                                     MelWindowSource& mel, std::string language,
                                     std::vector<backend::AttentionHead> heads)
    : model_(model),
      tokenizer_(tokenizer),
      recorder_(mel),
      language_(std::move(language)),
      heads_(std::move(heads)) {
    if (heads_.empty()) throw std::invalid_argument("word alignment needs at least one head");
}

void WindowWordAligner::add_words(std::span<Segment> segments) {
    if (segments.empty() || recorder_.last_window.numel() == 0) return;
    const int32_t eot = tokenizer_.specials().eot;
    std::vector<int32_t> text;
    std::vector<double> probabilities;
    bool measured = true;
    for (const Segment& segment : segments) {
        const bool has_logprobs = segment.token_logprobs.size() == segment.tokens.size();
        measured = measured && has_logprobs;
        for (size_t i = 0; i < segment.tokens.size(); ++i) {
            if (segment.tokens[i] >= eot) continue;
            text.push_back(segment.tokens[i]);
            probabilities.push_back(has_logprobs ? std::exp(segment.token_logprobs[i]) : 0.0);
        }
    }
    if (!measured) probabilities.clear();
    // The frames of the window that hold the file (openai's segment_size).
    const int64_t frames = recorder_.last_window.dim(2);
    const int64_t num_frames =
        std::clamp<int64_t>(recorder_.content_frames() - recorder_.last_seek, 1, frames);
    std::vector<AlignedWord> alignment =
        align_words(model_, tokenizer_, recorder_.last_window, language_, text, probabilities,
                    num_frames, heads_);
    const double time_offset_s = static_cast<double>(recorder_.last_seek) / 100.0;
    add_words_to_segments(segments, std::move(alignment), time_offset_s, eot, last_speech_s_);
}

}  // namespace earshot::decoding
