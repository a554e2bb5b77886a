// The vocabulary block of a whisper.cpp ggml container: raw token bytes, id = position.
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "vocab_sources.h"

namespace earshot::tokenizer {
namespace {

// GPT-2's ranks come first in every Whisper vocabulary; specials can only follow them.
constexpr size_t kFirstPossibleSpecial = 50256;

}  // namespace

BaseVocabulary read_ggml_vocabulary(const std::filesystem::path& path) {
    checkpoint::GgmlFile file;
    try {
        file = checkpoint::read_ggml_file(path);
    } catch (const checkpoint::CheckpointError& e) {
        throw TokenizerError(path, e.problem());
    }
    if (file.vocab.empty()) {
        throw TokenizerError(path, "the ggml file stores no vocabulary");
    }
    // Ids 0..255 are the single bytes in GPT-2's bytes_to_unicode order (33-126, 161-172, 174-255,
    // then the other 68 in increasing order). Some containers stored the bytes that are not UTF-8
    // on their own as U+FFFD; those are restored so that any text can be encoded. (Longer partial
    // UTF-8 tokens stored that way stay unreachable: such a file encodes some text differently.)
    size_t id = 0;
    const auto restore = [&](unsigned byte) {
        if (id < file.vocab.size() && file.vocab[id].size() != 1) {
            file.vocab[id] = std::string(1, static_cast<char>(byte));
        }
        ++id;
    };
    const auto printable = [](unsigned b) {
        return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    };
    for (unsigned byte = 0; byte < 256; ++byte) {
        if (printable(byte)) restore(byte);
    }
    for (unsigned byte = 0; byte < 256; ++byte) {
        if (!printable(byte)) restore(byte);
    }
    // English-only containers end their vocabulary with "<|endoftext|>" at 50256: a special,
    // checked against the layout like HF added tokens, not a base token.
    std::vector<std::pair<std::string, int32_t>> named_specials;
    while (file.vocab.size() > kFirstPossibleSpecial && file.vocab.back().size() >= 4 &&
           file.vocab.back().starts_with("<|") && file.vocab.back().ends_with("|>")) {
        named_specials.emplace_back(file.vocab.back(), static_cast<int32_t>(file.vocab.size() - 1));
        file.vocab.pop_back();
    }
    return {std::move(file.vocab), file.hparams.n_vocab, std::move(named_specials)};
}

}  // namespace earshot::tokenizer
