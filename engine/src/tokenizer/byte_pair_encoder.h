// BytePairEncoder: the base vocabulary (token bytes by rank = id) and tiktoken-style byte-level
// BPE over the pre-tokenizer's pieces, with a small cache of recently merged pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pre_tokenizer.h"

namespace earshot::tokenizer {

class BytePairEncoder {
public:
    // `tokens[id]` holds the bytes of rank `id`. Byte strings seen twice keep their lowest rank.
    // Throws TokenizerError (naming `source_name`) when a single byte has no token.
    BytePairEncoder(std::vector<std::string> tokens, const std::string& source_name);

    // Appends the ids of `text` to `out`.
    void encode(std::string_view text, std::vector<int32_t>& out) const;

    const std::string& token_bytes(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
    int64_t size() const { return static_cast<int64_t>(tokens_.size()); }

private:
    struct ViewHash {
        using is_transparent = void;
        size_t operator()(std::string_view text) const noexcept {
            return std::hash<std::string_view>{}(text);
        }
    };
    using RankMap = std::unordered_map<std::string, int32_t, ViewHash, std::equal_to<>>;

    int32_t rank_of(std::string_view bytes) const;  // kNoRank when not a token
    // Lowest-rank-first merges over one piece's bytes (not itself a token).
    void merge_piece(std::string_view piece, std::vector<int32_t>& out) const;

    std::vector<std::string> tokens_;
    RankMap ranks_;
    PreTokenizer pre_tokenizer_;

    // Merged pieces, cleared whenever it reaches kCacheEntries.
    static constexpr size_t kCacheEntries = size_t{1} << 15;
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<int32_t>, ViewHash, std::equal_to<>> cache_;
};

}  // namespace earshot::tokenizer
