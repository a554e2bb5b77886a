// Tokenizer test helpers: where the openai .tiktoken files are, an independent reader of them,
// GPT-2's byte-to-unicode spelling (for building HF tokenizer files) and a deterministic corpus of
// texts in several scripts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::test {

inline std::filesystem::path whisper_asset(std::string_view name) {
    return std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / name;
}

inline std::filesystem::path multilingual_tiktoken() {
    return whisper_asset("multilingual.tiktoken");
}
inline std::filesystem::path gpt2_tiktoken() { return whisper_asset("gpt2.tiktoken"); }

// Token bytes by rank from a .tiktoken file ("base64 rank" per line), read without the library.
inline std::vector<std::string> read_tiktoken_ranks(const std::filesystem::path& path) {
    auto sextet = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;  // '=' padding
    };
    std::map<int, std::string> by_rank;
    std::ifstream in(path);
    std::string b64;
    int rank = 0;
    while (in >> b64 >> rank) {
        std::string bytes;
        uint32_t bits = 0;
        int count = 0;
        for (char c : b64) {
            const int v = sextet(c);
            if (v < 0) break;
            bits = (bits << 6) | static_cast<uint32_t>(v);
            count += 6;
            if (count >= 8) {
                count -= 8;
                bytes += static_cast<char>((bits >> count) & 0xFF);
            }
        }
        by_rank[rank] = bytes;
    }
    std::vector<std::string> tokens;
    for (auto& [r, bytes] : by_rank) tokens.push_back(bytes);
    return tokens;
}

// GPT-2 bytes_to_unicode: bytes 33-126, 161-172, 174-255 spell themselves; the other 68, in
// increasing order, U+0100 + n. Returns the UTF-8 of the spelled string.
inline std::string spell_bytes(std::string_view bytes) {
    std::string out;
    for (char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        unsigned cp = b;
        if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)) {
            unsigned n = 0;
            for (unsigned x = 0; x < b; ++x) {
                if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || x >= 174)) ++n;
            }
            cp = 0x100 + n;
        }
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    return out;
}

// `count` texts mixing words of several scripts (Latin with accents, Cyrillic, Greek, CJK, Arabic,
// Hindi, emoji with ZWJ sequences and modifiers), digits, punctuation, contractions, whitespace
// runs and newlines; the same texts on every run (a fixed linear congruential generator).
inline std::vector<std::string> sample_texts(int count) {
    static const std::vector<std::string> kWords{"Hello",
                                                 "world",
                                                 "café",
                                                 "naïve",
                                                 "Ångström",
                                                 "über",
                                                 "señor",
                                                 "déjà",
                                                 "Œuvre",
                                                 "façade",
                                                 "привет",
                                                 "мир",
                                                 "Съешь",
                                                 "ещё",
                                                 "καλημέρα",
                                                 "Ωμέγα",
                                                 "λόγος",
                                                 "你好",
                                                 "世界",
                                                 "日本語",
                                                 "한국어",
                                                 "カタカナ",
                                                 "ひらがな",
                                                 "مرحبا",
                                                 "العالم",
                                                 "नमस्ते",
                                                 "दुनिया",
                                                 "हिन्दी",
                                                 "😀",
                                                 "👍🏽",
                                                 "👨‍👩‍👧‍👦",
                                                 "🏳️‍🌈",
                                                 "❤️",
                                                 "🇫🇷",
                                                 "12345",
                                                 "3.14",
                                                 "2024",
                                                 "0",
                                                 "1,000,000",
                                                 "!?",
                                                 "...",
                                                 "(hello)",
                                                 "«quoted»",
                                                 "—",
                                                 "#tag",
                                                 "@user",
                                                 "<|endoftext|>",
                                                 "don't",
                                                 "I'm",
                                                 "we'll",
                                                 "they've",
                                                 "she'd",
                                                 "it's",
                                                 "you're",
                                                 "O'Brien",
                                                 "DON'T",
                                                 "ß",
                                                 "ﬁ",
                                                 "½",
                                                 "™",
                                                 "\"quote\"",
                                                 "a-b",
                                                 "x_y",
                                                 "$9.99",
                                                 "100%",
                                                 "♪♪",
                                                 "[music]",
                                                 "https://example.org/a?b=c"};
    static const std::vector<std::string> kSeparators{
        " ", " ", " ", "  ", "\n", "\t", ", ", ". ", "", "   \n ", "\n\n", " \t ", "    "};
    std::vector<std::string> texts;
    uint64_t state = 0x2545F4914F6CDD1DULL;
    auto next = [&state](uint64_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<size_t>((state >> 33) % n);
    };
    for (int i = 0; i < count; ++i) {
        std::string text;
        const size_t words = 1 + next(8);
        if (next(5) == 0) text += kSeparators[next(kSeparators.size())];  // leading space
        for (size_t w = 0; w < words; ++w) {
            if (w > 0) text += kSeparators[next(kSeparators.size())];
            text += kWords[next(kWords.size())];
        }
        if (next(6) == 0) text += kSeparators[next(kSeparators.size())];  // trailing space
        texts.push_back(text);
    }
    return texts;
}

}  // namespace earshot::test
