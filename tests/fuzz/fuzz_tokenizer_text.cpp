// Fuzz target for the tokenizer's text path: arbitrary bytes (invalid UTF-8 included) through the
// PCRE2 pre-tokenizer and the BPE merges, then decoded back. A synthetic 50257-token vocabulary is
// written as a .tiktoken file once, so the target needs no shared assets.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/tokenizer/tokenizer.h"
#include "temp_dir.h"

namespace {

std::string base64(std::string_view bytes) {
    static constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16 |
                           static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8 |
                           static_cast<uint8_t>(bytes[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
    }
    if (bytes.size() - i == 1) {
        const uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += "==";
    } else if (bytes.size() - i == 2) {
        const uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16 |
                           static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

// 256 single bytes, then printable pairs, lowercase triples and " " + lowercase triples up to
// rank 50255, then the multilingual empty token at 50256: the multilingual layout's base size.
const earshot::tokenizer::Tokenizer& tokenizer() {
    static const earshot::test::TempDir dir("earshot-fuzz-tokenizer");
    static const earshot::tokenizer::Tokenizer loaded = [] {
        std::vector<std::string> tokens;
        for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
        for (char a = ' '; a <= '~'; ++a) {
            for (char b = ' '; b <= '~'; ++b) tokens.push_back(std::string{a, b});
        }
        for (char a = 'a'; a <= 'z'; ++a) {
            for (char b = 'a'; b <= 'z'; ++b) {
                for (char c = 'a'; c <= 'z'; ++c) {
                    tokens.push_back(std::string{a, b, c});
                    tokens.push_back(std::string{' ', a, b, c});
                }
            }
        }
        tokens.resize(50256);
        tokens.emplace_back();  // rank 50256: ""
        const auto path = dir.path() / "synthetic.tiktoken";
        std::ofstream out(path, std::ios::binary);
        for (size_t rank = 0; rank < tokens.size(); ++rank) {
            out << (tokens[rank].empty() ? std::string("=") : base64(tokens[rank])) << ' ' << rank
                << '\n';
        }
        out.close();
        return earshot::tokenizer::Tokenizer::load(path);
    }();
    return loaded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // Merges are quadratic in a piece's length (as in tiktoken); bound the work per input.
    const std::string_view text(reinterpret_cast<const char*>(data), size < 4096 ? size : 4096);
    const auto& t = tokenizer();
    const std::vector<int32_t> ids = t.encode(text);
    for (const int32_t id : ids) {
        if (id < 0 || id >= t.specials().eot) {
            std::fprintf(stderr, "encode produced id %d outside the base vocabulary\n", id);
            std::abort();
        }
    }
    // Valid UTF-8 comes back unchanged; anything else comes back with U+FFFD in it.
    const std::string decoded = t.decode(ids);
    if (decoded != text && decoded.find("\xEF\xBF\xBD") == std::string::npos) {
        std::fprintf(stderr, "decode(encode(text)) changed valid text\n");
        std::abort();
    }
    if (t.decode_text(ids) != decoded) {
        std::fprintf(stderr, "decode_text differs from decode on base tokens\n");
        std::abort();
    }
    return 0;
}
