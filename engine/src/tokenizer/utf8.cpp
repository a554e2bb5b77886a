// UTF-8 validation by the Unicode "maximal subpart" rule (Unicode 15, §3.9, Table 3-7).
#include "utf8.h"

#include <array>
#include <cstdint>

namespace earshot::tokenizer {
namespace {

struct Utf8Step {
    std::size_t length = 1;  // bytes consumed: the sequence, or the maximal ill-formed subpart
    bool valid = false;
};

// One step at `pos` (< text.size()), following Table 3-7's well-formed byte sequences.
Utf8Step utf8_step(std::string_view text, std::size_t pos) {
    const auto lead = static_cast<uint8_t>(text[pos]);
    if (lead < 0x80) {
        return {1, true};
    }
    std::size_t continuation_bytes = 0;
    uint8_t second_lo = 0x80;
    uint8_t second_hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        continuation_bytes = 1;
    } else if (lead == 0xE0) {
        continuation_bytes = 2;
        second_lo = 0xA0;
    } else if (lead == 0xED) {
        continuation_bytes = 2;
        second_hi = 0x9F;  // no surrogates
    } else if (lead >= 0xE1 && lead <= 0xEF) {
        continuation_bytes = 2;
    } else if (lead == 0xF0) {
        continuation_bytes = 3;
        second_lo = 0x90;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
        continuation_bytes = 3;
    } else if (lead == 0xF4) {
        continuation_bytes = 3;
        second_hi = 0x8F;  // nothing past U+10FFFF
    } else {
        return {1, false};  // 80..C1, F5..FF never start a sequence
    }
    std::size_t length = 1;
    for (std::size_t k = 0; k < continuation_bytes; ++k) {
        if (pos + length >= text.size()) {
            return {length, false};
        }
        const auto byte = static_cast<uint8_t>(text[pos + length]);
        const uint8_t lo = k == 0 ? second_lo : uint8_t{0x80};
        const uint8_t hi = k == 0 ? second_hi : uint8_t{0xBF};
        if (byte < lo || byte > hi) {
            return {length, false};
        }
        ++length;
    }
    return {length, true};
}

}  // namespace

void append_utf8_replacing_invalid(std::string_view bytes, std::string& out) {
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        const Utf8Step step = utf8_step(bytes, pos);
        if (step.valid) {
            out.append(bytes.substr(pos, step.length));
        } else {
            out.append("\xEF\xBF\xBD");
        }
        pos += step.length;
    }
}

std::string escape_invalid_utf8(std::string_view bytes) {
    static constexpr std::array<char, 16> kHex{'0', '1', '2', '3', '4', '5', '6', '7',
                                               '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    std::string out;
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        const Utf8Step step = utf8_step(bytes, pos);
        if (step.valid) {
            out.append(bytes.substr(pos, step.length));
        } else {
            for (std::size_t k = 0; k < step.length; ++k) {
                const auto byte = static_cast<uint8_t>(bytes[pos + k]);
                out += "\\x";
                out += kHex[byte >> 4];
                out += kHex[byte & 0xF];
            }
        }
        pos += step.length;
    }
    return out;
}

void append_utf8(char32_t cp, std::string& out) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

bool next_code_point(std::string_view text, std::size_t& pos, char32_t& cp) {
    if (pos >= text.size()) {
        return false;
    }
    const Utf8Step step = utf8_step(text, pos);
    if (!step.valid) {
        return false;
    }
    static constexpr std::array<uint8_t, 5> kLeadMask{0, 0x7F, 0x1F, 0x0F, 0x07};
    cp = static_cast<uint8_t>(text[pos]) & kLeadMask[step.length];
    for (std::size_t k = 1; k < step.length; ++k) {
        cp = (cp << 6) | (static_cast<uint8_t>(text[pos + k]) & 0x3F);
    }
    pos += step.length;
    return true;
}

}  // namespace earshot::tokenizer
