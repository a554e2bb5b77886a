// UTF-8 helpers for the tokenizer: decoding with replacement (CPython's errors="replace": one
// U+FFFD per maximal ill-formed subpart), escaping for display, and code point iteration.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace earshot::tokenizer {

// `bytes` appended to `out` as valid UTF-8: each maximal subpart of an ill-formed sequence becomes
// U+FFFD (EF BF BD).
void append_utf8_replacing_invalid(std::string_view bytes, std::string& out);

// `bytes` with every byte that is not part of a valid UTF-8 sequence written as \xNN.
std::string escape_invalid_utf8(std::string_view bytes);

// Appends code point `cp` (<= 0x10FFFF) as UTF-8.
void append_utf8(char32_t cp, std::string& out);

// Reads the code point at `pos` and advances past it; false (pos unchanged) when the bytes there
// are not a valid UTF-8 sequence or pos is at the end.
bool next_code_point(std::string_view text, std::size_t& pos, char32_t& cp);

}  // namespace earshot::tokenizer
