// plain_words: text as lowercase ASCII words, the tests' own normaliser for comparing what was said
// with what was heard. Kept apart from the product's (decoding::comparable_word) so that a broken
// product normaliser cannot make both sides agree and hide errors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace earshot::test {

// Letters and digits make words, lowercased; an apostrophe is dropped ("Don't" -> "dont");
// anything else (spaces, punctuation, other bytes) separates words.
inline std::vector<std::string> plain_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (const char c : text) {
        if (c >= 'A' && c <= 'Z') {
            word.push_back(static_cast<char>(c - 'A' + 'a'));
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            word.push_back(c);
        } else if (c == '\'') {
            continue;
        } else if (!word.empty()) {
            words.push_back(word);
            word.clear();
        }
    }
    if (!word.empty()) words.push_back(word);
    return words;
}

// One word's plain form: its plain_words run together ("" when it has none).
inline std::string plain_word(std::string_view text) {
    std::string joined;
    for (const std::string& part : plain_words(text)) joined += part;
    return joined;
}

}  // namespace earshot::test
