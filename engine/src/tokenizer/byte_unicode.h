// GPT-2's byte-to-unicode mapping, used by Hugging Face vocab.json / merges.txt / tokenizer.json
// to spell token bytes as printable characters (whisper-inference.md §4.1).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace earshot::tokenizer {

// The code point byte `byte` is spelled with: itself for 33-126, 161-172 and 174-255; the other
// 68 bytes, in increasing order, U+0100 + n (space -> U+0120, newline -> U+010A).
char32_t byte_to_unicode(unsigned char byte);

// The raw bytes a byte-level string spells; nullopt when it is not valid UTF-8 or holds a code
// point outside the mapping.
std::optional<std::string> unicode_to_bytes(std::string_view spelled);

}  // namespace earshot::tokenizer
