// Byte-level BPE as openai's tiktoken does it: a piece that is a token is emitted whole; otherwise
// start from single bytes and repeatedly merge the leftmost adjacent pair whose concatenation has
// the lowest rank, until no adjacent pair is a token (whisper-inference.md §4.1).
#include "byte_pair_encoder.h"

#include <limits>
#include <utility>

#include "earshot/engine/tokenizer/tokenizer_error.h"

namespace earshot::tokenizer {
namespace {

constexpr int32_t kNoRank = std::numeric_limits<int32_t>::max();

}  // namespace

BytePairEncoder::BytePairEncoder(std::vector<std::string> tokens, const std::string& source_name)
    : tokens_(std::move(tokens)) {
    ranks_.reserve(tokens_.size());
    for (size_t id = 0; id < tokens_.size(); ++id) {
        ranks_.emplace(tokens_[id], static_cast<int32_t>(id));  // keeps the first (lowest) rank
    }
    for (int byte = 0; byte < 256; ++byte) {
        if (!ranks_.contains(std::string(1, static_cast<char>(byte)))) {
            throw TokenizerError(source_name + ": the vocabulary has no token for byte " +
                                 std::to_string(byte) + ", so some text cannot be encoded");
        }
    }
}

int32_t BytePairEncoder::rank_of(std::string_view bytes) const {
    const auto it = ranks_.find(bytes);
    return it == ranks_.end() ? kNoRank : it->second;
}

void BytePairEncoder::merge_piece(std::string_view piece, std::vector<int32_t>& out) const {
    // parts[i].start .. parts[i + 1].start are the bytes of part i; parts[i].pair_rank is the rank
    // of part i joined with part i + 1 (kNoRank past the end or when not a token).
    struct Part {
        size_t start;
        int32_t pair_rank;
    };
    std::vector<Part> parts;
    parts.reserve(piece.size() + 1);
    for (size_t i = 0; i <= piece.size(); ++i) {
        parts.push_back({i, kNoRank});
    }
    const auto pair_rank = [&](size_t i) {
        if (i + 2 >= parts.size()) {
            return kNoRank;
        }
        return rank_of(piece.substr(parts[i].start, parts[i + 2].start - parts[i].start));
    };
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        parts[i].pair_rank = pair_rank(i);
    }
    while (parts.size() > 2) {
        int32_t best_rank = kNoRank;
        size_t best = 0;
        for (size_t i = 0; i + 2 < parts.size(); ++i) {
            if (parts[i].pair_rank < best_rank) {
                best_rank = parts[i].pair_rank;
                best = i;
            }
        }
        if (best_rank == kNoRank) {
            break;
        }
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
        parts[best].pair_rank = pair_rank(best);
        if (best > 0) {
            parts[best - 1].pair_rank = pair_rank(best - 1);
        }
    }
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        // Every part is a single byte (present: checked at construction) or a merged token.
        out.push_back(rank_of(piece.substr(parts[i].start, parts[i + 1].start - parts[i].start)));
    }
}

void BytePairEncoder::encode(std::string_view text, std::vector<int32_t>& out) const {
    for (const std::string_view piece : pre_tokenizer_.split(text)) {
        if (const int32_t whole = rank_of(piece); whole != kNoRank) {
            out.push_back(whole);
            continue;
        }
        {
            const std::lock_guard lock(cache_mutex_);
            if (const auto it = cache_.find(piece); it != cache_.end()) {
                out.insert(out.end(), it->second.begin(), it->second.end());
                continue;
            }
        }
        std::vector<int32_t> ids;
        merge_piece(piece, ids);
        out.insert(out.end(), ids.begin(), ids.end());
        const std::lock_guard lock(cache_mutex_);
        if (cache_.size() >= kCacheEntries) {
            cache_.clear();
        }
        cache_.emplace(std::string(piece), std::move(ids));
    }
}

}  // namespace earshot::tokenizer
