// TextEdit's UTF-8 arithmetic.
#include "core/dictation/text_edit.h"

#include <algorithm>

namespace earshot::app {

namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }

}  // namespace

size_t utf8_chars(std::string_view text) {
    return static_cast<size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return !continuation(c); }));
}

TextEdit text_edit_between(std::string_view before, std::string_view after) {
    size_t common = 0;
    const size_t limit = std::min(before.size(), after.size());
    while (common < limit && before[common] == after[common]) ++common;
    // Back to a character boundary in both.
    while (common > 0 && ((common < before.size() && continuation(before[common])) ||
                          (common < after.size() && continuation(after[common])))) {
        --common;
    }
    return {utf8_chars(before.substr(common)), std::string(after.substr(common))};
}

void apply_text_edit(std::string& text, const TextEdit& edit) {
    size_t left = edit.erase_chars;
    while (left > 0 && !text.empty()) {
        while (!text.empty() && continuation(text.back())) text.pop_back();
        if (!text.empty()) text.pop_back();
        --left;
    }
    text += edit.text;
}

}  // namespace earshot::app
