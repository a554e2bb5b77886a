// The .tiktoken reader: base64 token bytes and a rank per line.
#include <array>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string_view>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "vocab_sources.h"

namespace earshot::tokenizer {
namespace {

// Standard base64 (RFC 4648 alphabet, '=' padding); false on any other character.
bool decode_base64(std::string_view text, std::string& bytes) {
    static const std::array<int8_t, 256> kValue = [] {
        std::array<int8_t, 256> v{};
        v.fill(-1);
        const std::string_view alphabet =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (size_t i = 0; i < alphabet.size(); ++i) {
            v[static_cast<uint8_t>(alphabet[i])] = static_cast<int8_t>(i);
        }
        return v;
    }();
    while (!text.empty() && text.back() == '=') {
        text.remove_suffix(1);
    }
    bytes.clear();
    uint32_t accumulator = 0;
    int bits = 0;
    for (const char c : text) {
        const int8_t value = kValue[static_cast<uint8_t>(c)];
        if (value < 0) {
            return false;
        }
        accumulator = (accumulator << 6) | static_cast<uint32_t>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes += static_cast<char>((accumulator >> bits) & 0xFF);
        }
    }
    return true;
}

}  // namespace

BaseVocabulary read_tiktoken_vocabulary(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw TokenizerError(path, "cannot open the file");
    }
    std::vector<std::string> by_rank;
    std::vector<bool> seen;
    std::string line;
    std::string bytes;
    int64_t line_number = 0;
    while (std::getline(file, line)) {
        ++line_number;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.empty()) {
            continue;
        }
        const auto where = "line " + std::to_string(line_number) + ": ";
        const size_t space = line.find(' ');
        if (space == std::string::npos) {
            throw TokenizerError(path, where + "expected \"base64 rank\", got " +
                                           checkpoint::quote_for_message(line));
        }
        const std::string_view rank_text = std::string_view(line).substr(space + 1);
        int64_t rank = -1;
        const auto [end, ec] =
            std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
        if (ec != std::errc{} || end != rank_text.data() + rank_text.size() || rank < 0 ||
            rank >= (int64_t{1} << 24)) {
            throw TokenizerError(path,
                                 where + "bad rank " + checkpoint::quote_for_message(rank_text));
        }
        if (!decode_base64(std::string_view(line).substr(0, space), bytes)) {
            throw TokenizerError(path, where + "token bytes are not base64");
        }
        const auto index = static_cast<size_t>(rank);
        if (index >= by_rank.size()) {
            by_rank.resize(index + 1);
            seen.resize(index + 1, false);
        }
        if (seen[index]) {
            throw TokenizerError(path, where + "rank " + std::to_string(rank) + " appears twice");
        }
        seen[index] = true;
        by_rank[index] = bytes;
    }
    for (size_t rank = 0; rank < seen.size(); ++rank) {
        if (!seen[rank]) {
            throw TokenizerError(path, "ranks are not contiguous: " + std::to_string(rank) +
                                           " is missing below " + std::to_string(seen.size()));
        }
    }
    if (by_rank.empty()) {
        throw TokenizerError(path, "no tokens");
    }
    return {std::move(by_rank), 0, {}};
}

}  // namespace earshot::tokenizer
