// Text tokens into words and punctuation into the words beside it (openai's
// split_to_word_tokens and merge_punctuations), written from the description in word_tokens.h.
#include "earshot/engine/decoding/word_tokens.h"

#include <string_view>
#include <utility>

namespace earshot::decoding {
namespace {

// Python's `needle in haystack` on strings: a substring test (the empty string is in every one).
bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

std::string_view strip_spaces(std::string_view text) {
    constexpr std::string_view kSpace = " \t\n\r\f\v";
    const size_t begin = text.find_first_not_of(kSpace);
    if (begin == std::string_view::npos) return {};
    return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

// Python's string.punctuation.
constexpr std::string_view kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
// openai transcribe()'s defaults.
constexpr std::string_view kPrependPunctuations = "\"'\u201c\u00bf([{-";
constexpr std::string_view kAppendPunctuations =
    "\"'.\u3002,\uff0c!\uff01?\uff1f:\uff1a\u201d)]}\u3001";

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
}  // namespace

bool splits_by_character(const std::string& language) {
    return language == "zh" || language == "ja" || language == "th" || language == "lo" ||
           language == "my" || language == "yue";
}

std::vector<AlignedWord> split_word_tokens(std::span<const int32_t> text_tokens,
                                           const DecodeTextFn& decode_text, bool by_character) {
    // Groups of tokens whose text is whole UTF-8 (a character split over tokens stays in one).
    const std::string full = decode_text(text_tokens);
    std::vector<AlignedWord> groups;
    std::vector<int32_t> current;
    size_t offset = 0;  // bytes of `full` the groups so far decode to
    for (int32_t token : text_tokens) {
        current.push_back(token);
        const std::string text = decode_text(current);
        const size_t bad = text.find(kReplacement);
        if (bad == std::string::npos ||
            full.compare(offset + bad, kReplacement.size(), kReplacement) == 0) {
            groups.push_back({text, current, 0.0, 0.0, 0.0});
            offset += text.size();
            current.clear();
        }
    }
    if (by_character) return groups;
    std::vector<AlignedWord> words;
    for (AlignedWord& group : groups) {
        const bool with_space = !group.text.empty() && group.text.front() == ' ';
        const bool punctuation = contains(kPunctuation, strip_spaces(group.text));
        if (with_space || punctuation || words.empty()) {
            words.push_back(std::move(group));
        } else {
            words.back().text += group.text;
            words.back().tokens.insert(words.back().tokens.end(), group.tokens.begin(),
                                       group.tokens.end());
        }
    }
    return words;
}

void merge_punctuations(std::vector<AlignedWord>& words) {
    if (words.size() < 2) return;
    // Opening marks join the word after them, scanning from the end.
    int64_t i = static_cast<int64_t>(words.size()) - 2;
    int64_t j = static_cast<int64_t>(words.size()) - 1;
    while (i >= 0) {
        AlignedWord& previous = words[static_cast<size_t>(i)];
        AlignedWord& following = words[static_cast<size_t>(j)];
        if (!previous.text.empty() && previous.text.front() == ' ' &&
            contains(kPrependPunctuations, strip_spaces(previous.text))) {
            following.text = previous.text + following.text;
            following.tokens.insert(following.tokens.begin(), previous.tokens.begin(),
                                    previous.tokens.end());
            previous.text.clear();
            previous.tokens.clear();
        } else {
            j = i;
        }
        --i;
    }
    // Closing marks join the word before them, scanning from the start.
    size_t a = 0;
    size_t b = 1;
    while (b < words.size()) {
        AlignedWord& previous = words[a];
        AlignedWord& following = words[b];
        if (!(!previous.text.empty() && previous.text.back() == ' ') &&
            contains(kAppendPunctuations, following.text)) {
            previous.text += following.text;
            previous.tokens.insert(previous.tokens.end(), following.tokens.begin(),
                                   following.tokens.end());
            following.text.clear();
            following.tokens.clear();
        } else {
            a = b;
        }
        ++b;
    }
}

}  // namespace earshot::decoding
