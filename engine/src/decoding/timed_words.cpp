// Splitting a hypothesis into timed words (streaming policy input).
#include "earshot/engine/decoding/timed_words.h"

#include <algorithm>
#include <cctype>

#include "earshot/engine/decoding/logit_filters.h"

namespace earshot::decoding {

namespace {

size_t visible_chars(const std::string& text) {
    size_t n = 0;
    for (char c : text) n += c == ' ' ? 0 : 1;
    return std::max<size_t>(n, 1);
}

// Shares [start_s, end_s] among words[first, last) by character count.
void spread_times(std::vector<TimedWord>& words, size_t first, size_t last, double start_s,
                  double end_s) {
    if (first >= last) return;
    end_s = std::max(end_s, start_s);
    size_t total = 0;
    for (size_t i = first; i < last; ++i) total += visible_chars(words[i].text);
    double at = start_s;
    size_t done = 0;
    for (size_t i = first; i < last; ++i) {
        done += visible_chars(words[i].text);
        words[i].start_s = at;
        at = start_s + (end_s - start_s) * static_cast<double>(done) / static_cast<double>(total);
        words[i].end_s = at;
    }
}

}  // namespace

std::vector<TimedWord> split_timed_words(std::span<const int32_t> tokens, size_t from,
                                         const WordVocabulary& vocabulary, double open_end_s) {
    std::vector<TimedWord> words;  // every word of the whole sequence, prefix included
    size_t first_in_segment = 0;   // index in `words` of the open segment's first word
    double segment_start_s = 0.0;
    bool after_timestamp = true;
    size_t first_returned = 0;
    bool from_seen = false;

    auto close_segment = [&](double end_s, size_t closing_index) {
        spread_times(words, first_in_segment, words.size(), segment_start_s, end_s);
        words.back().closes_segment = true;
        words.back().closing_index = closing_index;
        first_in_segment = words.size();
    };

    for (size_t i = 0; i < tokens.size(); ++i) {
        if (i == from) {
            first_returned = words.size();
            from_seen = true;
        }
        const int32_t id = tokens[i];
        if (id >= vocabulary.timestamp_begin) {
            // A timestamp in the window's padding is clamped to the end of the audio.
            const double t =
                std::min(static_cast<double>(id - vocabulary.timestamp_begin) * timestamp_step_s,
                         open_end_s);
            if (first_in_segment < words.size()) {
                close_segment(t, i);
            } else {
                segment_start_s = t;
            }
            after_timestamp = true;
            continue;
        }
        if (id >= vocabulary.eot) continue;  // specials carry no text
        const std::string piece = vocabulary.decode_text(tokens.subspan(i, 1));
        const bool starts_word = words.empty() || after_timestamp || i == from ||
                                 (!piece.empty() && piece.front() == ' ') ||
                                 first_in_segment == words.size();
        if (starts_word) {
            TimedWord word;
            word.token_begin = i;
            words.push_back(std::move(word));
        }
        TimedWord& word = words.back();
        word.token_end = i + 1;
        // The word's tokens decoded together, so multi-token UTF-8 characters come out whole.
        word.text = vocabulary.decode_text(
            tokens.subspan(word.token_begin, word.token_end - word.token_begin));
        after_timestamp = false;
    }
    if (!from_seen) first_returned = words.size();
    spread_times(words, first_in_segment, words.size(), segment_start_s, open_end_s);
    words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(first_returned));
    return words;
}

std::string comparable_word(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x80) {
            out.push_back(c);
        } else if (std::isalnum(byte) != 0) {
            out.push_back(static_cast<char>(std::tolower(byte)));
        }
    }
    return out;
}

}  // namespace earshot::decoding
