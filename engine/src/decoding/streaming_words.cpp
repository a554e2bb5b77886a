// StreamingTranscriber's words: committing them (agreed, or the tentative ones as they stand),
// their stream times, tokens and probabilities, alignment times, and words heard twice.
#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "earshot/engine/decoding/alignment_map.h"
#include "earshot/engine/decoding/live_cross_attention.h"
#include "earshot/engine/decoding/logit_filters.h"
#include "earshot/engine/decoding/streaming_transcriber.h"
#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "streaming_steps.h"

namespace earshot::decoding {

namespace {

// A window restarted inside speech starts at an estimated word time, so it may hear the last
// committed words again; this many are compared with the new hypothesis's first words.
constexpr size_t kMaxRepeatedWords = 5;

}  // namespace

void StreamingTranscriber::commit_tentative(StreamUpdate& update) {
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

std::string StreamingTranscriber::token_text(int32_t token) const {
    const std::array<int32_t, 1> one{token};
    return token < tok_.specials().eot ? tok_.decode_text(one) : tok_.token_name(token);
}

WordVocabulary StreamingTranscriber::word_vocabulary() const {
    return WordVocabulary{
        .timestamp_begin = tok_.specials().timestamp_begin,
        .eot = tok_.specials().eot,
        .decode_text = [this](std::span<const int32_t> ids) { return tok_.decode_text(ids); }};
}

std::vector<AlignedWord> StreamingTranscriber::align_and_keep_map(
    std::span<const int32_t> text, const backend::HostTensor& window_mel, int64_t window_frames) {
    const LiveCrossAttentionChoice* choice = options_.cross_attention.get();
    const bool keep = choice != nullptr && choice->keep.load(std::memory_order_relaxed);
    // The heads of the one prefill: the alignment heads, and the chosen head after them when it
    // is none of them (the map reads its own rows of the same weights).
    std::vector<backend::AttentionHead> heads = options_.alignment_heads;
    std::vector<size_t> map_heads;
    if (keep) {
        const backend::AttentionHead chosen{choice->layer.load(std::memory_order_relaxed),
                                            choice->head.load(std::memory_order_relaxed)};
        if (chosen.layer < 0 || chosen.head < 0) {
            for (size_t h = 0; h < heads.size(); ++h) map_heads.push_back(h);
        } else {
            const auto at = std::find(heads.begin(), heads.end(), chosen);
            if (at == heads.end()) heads.push_back(chosen);
            map_heads.push_back(
                static_cast<size_t>(std::find(heads.begin(), heads.end(), chosen) - heads.begin()));
        }
    }
    size_t sot_length = 0;
    backend::HostTensor weights;
    try {
        weights = alignment_prefill(model_, tok_, window_mel, language_, text, heads, sot_length);
    } catch (const std::out_of_range&) {
        if (heads.size() == options_.alignment_heads.size()) throw;
        // A chosen head the decoder lacks: the words are timed, the map says nothing.
        heads.pop_back();
        map_heads.clear();
        weights = alignment_prefill(model_, tok_, window_mel, language_, text, heads, sot_length);
    }
    const size_t aligning = options_.alignment_heads.size();
    std::vector<size_t> alignment_rows(aligning);
    for (size_t h = 0; h < aligning; ++h) alignment_rows[h] = h;
    const backend::HostTensor aligned_weights =
        heads.size() == aligning ? weights : select_heads(weights, alignment_rows);
    const DecodeTextFn decode = [this](std::span<const int32_t> ids) {
        return tok_.decode_text(ids);
    };
    std::vector<AlignedWord> aligned =
        align_from_cross_attention(aligned_weights, sot_length, text, {}, window_frames, decode,
                                   splits_by_character(language_));
    if (keep && !map_heads.empty()) {
        auto live = std::make_shared<LiveCrossAttention>();
        for (const size_t h : map_heads) live->heads.push_back(heads[h]);
        live->alignment_heads = map_heads.size() == aligning && heads.size() == aligning;
        live->weights = map_heads.size() == heads.size() ? std::move(weights)
                                                         : select_heads(weights, map_heads);
        live->sot_length = sot_length;
        live->map = alignment_map(live->weights, sot_length, static_cast<int64_t>(text.size()),
                                  window_frames);
        live->row_tokens.push_back(tok_.token_name(tok_.specials().notimestamps));
        for (const int32_t token : text) live->row_tokens.push_back(token_text(token));
        live->window_start_s = seconds(window_start_frame_);
        live->window_frames = window_frames;
        live->mels = mels_;
        live->text_tokens.assign(text.begin(), text.end());
        live->language = language_;
        live->frames = frames_;
        const auto mel = window_mel.f32_values();  // [1, Mels, Frames]
        live->mel.assign(mel.begin(), mel.end());
        live_map_ = std::move(live);
    }
    return aligned;
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
    const std::vector<AlignedWord> aligned = align_and_keep_map(text, window_mel, window_frames);
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

}  // namespace earshot::decoding
