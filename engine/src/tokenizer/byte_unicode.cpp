// The byte <-> code point tables of GPT-2's bytes_to_unicode, built once.
#include "byte_unicode.h"

#include <array>
#include <cstdint>

#include "utf8.h"

namespace earshot::tokenizer {
namespace {

bool printable_as_itself(unsigned byte) {
    return (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
}

struct ByteTables {
    std::array<char32_t, 256> code_point{};
    std::array<int16_t, 324> byte_of{};  // code points 0..323 (U+0100 + 67 is the last); -1: none
};

const ByteTables& tables() {
    static const ByteTables built = [] {
        ByteTables t;
        t.byte_of.fill(-1);
        unsigned shifted = 0;
        for (unsigned byte = 0; byte < 256; ++byte) {
            const char32_t cp = printable_as_itself(byte) ? byte : 0x100 + shifted++;
            t.code_point[byte] = cp;
            t.byte_of[cp] = static_cast<int16_t>(byte);
        }
        return t;
    }();
    return built;
}

}  // namespace

char32_t byte_to_unicode(unsigned char byte) { return tables().code_point[byte]; }

std::optional<std::string> unicode_to_bytes(std::string_view spelled) {
    const ByteTables& t = tables();
    std::string bytes;
    bytes.reserve(spelled.size());
    std::size_t pos = 0;
    while (pos < spelled.size()) {
        char32_t cp = 0;
        if (!next_code_point(spelled, pos, cp) || cp >= t.byte_of.size() || t.byte_of[cp] < 0) {
            return std::nullopt;
        }
        bytes += static_cast<char>(t.byte_of[cp]);
    }
    return bytes;
}

}  // namespace earshot::tokenizer
