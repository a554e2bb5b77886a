// Words from text tokens as openai's word timing forms them (timing.py): tokens grouped into
// words, and punctuation merged into the words beside it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace earshot::decoding {

// A word of the alignment: its text tokens and times (seconds from the window start).
struct AlignedWord {
    std::string text;
    std::vector<int32_t> tokens;
    double start_s = 0.0;
    double end_s = 0.0;
    double probability = 0.0;
};

// openai's split_to_word_tokens: tokens are first grouped until their text is whole UTF-8; a
// group starts a new word when it begins with a space, is punctuation (its stripped text is part
// of ASCII's punctuation run, as Python's `in` tests it) or is the first; otherwise it joins the
// word before. `by_character` (languages written without spaces: zh, ja, th, lo, my, yue) makes
// every group a word. Times are left 0.
using DecodeTextFn = std::function<std::string(std::span<const int32_t>)>;
std::vector<AlignedWord> split_word_tokens(std::span<const int32_t> text_tokens,
                                           const DecodeTextFn& decode_text, bool by_character);

// Whether a language is written without spaces between words (openai's list).
bool splits_by_character(const std::string& language);

// openai's merge_punctuations: an opening mark (" \" ' “ ¿ ( [ { -", after its space) joins the
// word after it, a closing mark (". , ! ? : ” ) ] } 、" and their full-width forms, and quotes)
// the word before it; the word merged away is left with empty text and no tokens, and the word
// it joins keeps its own times.
void merge_punctuations(std::vector<AlignedWord>& words);

}  // namespace earshot::decoding
