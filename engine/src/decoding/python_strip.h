// Python's str.strip() (no argument) on UTF-8 text: openai strips decoded text with it before the
// blank-segment test, the compression ratio and the prompt and prefix encodings (reference §5.1,
// §5.4, §5.6).
#pragma once

#include <array>
#include <string_view>

namespace earshot::decoding {

namespace python_strip_detail {

// The code points Python's str.isspace() accepts, which str.strip() removes: Unicode's
// bidirectional types WS, B and S and general category Zs (CPython's _PyUnicode_IsWhitespace,
// Objects/unicodetype_db.h; listed with CPython 3.11 by `[hex(c) for c in range(0x110000) if
// chr(c).isspace()]`, 29 code points):
//   U+0009-U+000D (tab, LF, VT, FF, CR), U+001C-U+001F (file, group, record and unit
//   separators), U+0020, U+0085 (NEL), U+00A0 (no-break space), U+1680, U+2000-U+200A, U+2028,
//   U+2029, U+202F, U+205F, U+3000.
// Here as their UTF-8 encodings, at most 3 bytes each.
inline constexpr std::array<std::string_view, 29> kWhitespace{
    "\x09",         "\x0a",         "\x0b",         "\x0c",         "\x0d",         "\x1c",
    "\x1d",         "\x1e",         "\x1f",         "\x20",         "\xc2\x85",     "\xc2\xa0",
    "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81", "\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84",
    "\xe2\x80\x85", "\xe2\x80\x86", "\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89", "\xe2\x80\x8a",
    "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80",
};

// Bytes of the whitespace code point `text` starts (front) or ends (back) with; 0 if none.
inline size_t leading(std::string_view text) {
    for (std::string_view space : kWhitespace) {
        if (text.starts_with(space)) return space.size();
    }
    return 0;
}
inline size_t trailing(std::string_view text) {
    for (std::string_view space : kWhitespace) {
        if (text.ends_with(space)) return space.size();
    }
    return 0;
}

}  // namespace python_strip_detail

// `text` without leading and trailing whitespace as Python's str.strip() sees it.
inline std::string_view python_strip(std::string_view text) {
    while (const size_t n = python_strip_detail::leading(text)) text.remove_prefix(n);
    while (const size_t n = python_strip_detail::trailing(text)) text.remove_suffix(n);
    return text;
}

// Whether Python's str.strip() leaves nothing of `text`.
inline bool is_python_blank(std::string_view text) { return python_strip(text).empty(); }

}  // namespace earshot::decoding
