// Tokenizer: Whisper's byte-level BPE (GPT-2 pre-tokenizer, lowest-rank-first merges) over a base
// vocabulary read from a .tiktoken file, a Hugging Face directory or a ggml .bin, plus the special
// tokens the vocabulary size implies.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/tokenizer/special_tokens.h"

namespace earshot::tokenizer {

class BytePairEncoder;

class Tokenizer {
public:
    // Reads the base vocabulary from `path`:
    // - a .tiktoken file ("base64(bytes) rank" per line);
    // - a Hugging Face directory (or a tokenizer.json / vocab.json inside one): tokenizer.json,
    // else
    //   vocab.json + merges.txt [+ added_tokens.json]; the byte-to-unicode strings are mapped back
    //   to bytes and the ids are the ranks;
    // - a whisper.cpp ggml .bin (its vocabulary block).
    // `n_vocab` 0 takes the source's own size: the ggml header's n_vocab; for HF, config.json's
    // vocab_size beside it, else the tiktoken rule; for tiktoken, 50257 base ranks -> 51865 and
    // 50256 -> 51864. Throws TokenizerError naming the file when it cannot be read, is malformed,
    // or its base vocabulary does not fit the special-token layout of n_vocab.
    static Tokenizer load(const std::filesystem::path& path, int64_t n_vocab = 0);

    // The ids of ordinary text (special-token names in `text` are encoded as text).
    std::vector<int32_t> encode(std::string_view text) const;
    // openai semantics: ids >= timestamp_begin are dropped, other specials become their names,
    // base tokens their bytes; the bytes are read as UTF-8 with U+FFFD for invalid sequences.
    // Throws TokenizerError on an id < 0.
    std::string decode(std::span<const int32_t> ids) const;
    // Base tokens only (every special and timestamp dropped): a segment's text.
    std::string decode_text(std::span<const int32_t> ids) const;

    const SpecialTokens& specials() const { return specials_; }
    bool multilingual() const { return n_vocab_ >= kMultilingualVocab; }
    int64_t n_vocab() const { return n_vocab_; }

    // The language token for an openai code ("en" -> 50259 on multilingual vocabularies); "iw"
    // is taken as "he". -1 when the code is unknown or has no slot in this vocabulary.
    int32_t language_token(std::string_view code) const;
    // The code of a language token ("en"); "" when `token` is not one.
    std::string_view language_code(int32_t token) const;

    // openai's non_speech_tokens (whisper-inference.md §5.2), computed by encoding its symbols:
    // sorted, without duplicates.
    std::vector<int32_t> non_speech_tokens() const;

    // For debugging: a base token's bytes (bytes that are not valid UTF-8 written as \xNN), a
    // special's name ("<|en|>", "<|1.50|>"). Throws TokenizerError outside [0, n_vocab).
    std::string token_name(int32_t id) const;

private:
    Tokenizer(std::shared_ptr<const BytePairEncoder> bpe, int64_t n_vocab);

    std::shared_ptr<const BytePairEncoder> bpe_;
    int64_t n_vocab_ = 0;
    SpecialTokens specials_;
};

}  // namespace earshot::tokenizer
