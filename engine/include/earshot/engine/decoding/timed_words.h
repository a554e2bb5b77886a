// Timed words of a streaming hypothesis: a token sequence with timestamp tokens split into words,
// each with its tokens and a start and end time inside the window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace earshot::decoding {

// What word splitting needs from a vocabulary.
struct WordVocabulary {
    int32_t timestamp_begin = 0;  // <|0.00|>; ids at or above it are timestamps (0.02 s each)
    int32_t eot = 0;              // ids at or above it that are not timestamps are dropped
    std::function<std::string(std::span<const int32_t>)> decode_text;  // text tokens only
};

// One word of a hypothesis. Times are seconds from the window start. Whisper's timestamp tokens
// only mark segment boundaries, so a word's time inside its segment is an estimate: the segment's
// span shared among its words in proportion to their character counts (an open last segment
// ends at `open_end_s`). Cross-attention alignment would do better; it is not done here.
struct TimedWord {
    std::string text;        // decoded, leading space kept (" hello,")
    size_t token_begin = 0;  // [token_begin, token_end): the word's text tokens in the input
    size_t token_end = 0;    //   (timestamp tokens before the word are not included)
    double start_s = 0.0;
    double end_s = 0.0;
    bool closes_segment = false;  // a timestamp token follows the word: the segment's end
    size_t closing_index = 0;     // that timestamp's index in the input, when closes_segment
};

// Splits tokens[from:] into words; tokens[:from] (an already committed prefix) only gives context:
// the open segment's start time, and `from` is always a word boundary. A word starts at a text
// token whose text begins with a space, after a timestamp, or at `from`; punctuation and word
// pieces join the word before them. Segments: a timestamp after text closes the open segment, a
// timestamp after a timestamp (or at the start) opens one; words before any timestamp start at 0.
// Timestamps past `open_end_s` (the end of the window's audio) count as `open_end_s`.
std::vector<TimedWord> split_timed_words(std::span<const int32_t> tokens, size_t from,
                                         const WordVocabulary& vocabulary, double open_end_s);

// The form words are compared in: lower case ASCII letters and digits only (punctuation, spaces
// and case changes between two hypotheses do not make them disagree); other bytes (UTF-8 text
// beyond ASCII) are kept as they are.
std::string comparable_word(const std::string& text);

}  // namespace earshot::decoding
