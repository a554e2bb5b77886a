// TextEdit: how dictated text changes once spoken commands may take back what was already shown
// or typed: erase characters at the end, then append. The same edit drives the transcript, the
// journal and the keys typed into another application (backspaces, then the text).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace earshot::app {

struct TextEdit {
    size_t erase_chars = 0;  // code points taken off the end of what was shown before
    std::string text;        // then appended (UTF-8)
    bool empty() const { return erase_chars == 0 && text.empty(); }
};

// Code points in `text` (UTF-8 continuation bytes count none).
size_t utf8_chars(std::string_view text);
// The edit that turns `before` into `after`: their common prefix is kept (whole characters).
TextEdit text_edit_between(std::string_view before, std::string_view after);
// `text` with `edit` applied (erasing more than there is empties it).
void apply_text_edit(std::string& text, const TextEdit& edit);

}  // namespace earshot::app
