// Readers of the base BPE vocabulary from each source format: token bytes by rank, the size the
// source declares, and the special tokens it names (checked against the layout by the caller).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace earshot::tokenizer {

struct BaseVocabulary {
    std::vector<std::string> tokens;  // bytes of rank (= id) 0 .. N-1
    int64_t n_vocab = 0;              // the full size the source declares; 0 when it has none
    std::vector<std::pair<std::string, int32_t>> named_specials;  // HF added tokens: name, id
};

// openai .tiktoken: one "base64(bytes) rank" a line, ranks 0..N-1 each exactly once.
BaseVocabulary read_tiktoken_vocabulary(const std::filesystem::path& path);

// A Hugging Face tokenizer directory: tokenizer.json (model.vocab, added_tokens), else vocab.json
// + merges.txt [+ added_tokens.json]; n_vocab from config.json's vocab_size, else, when an added
// token names <|notimestamps|>, that id + 1502 (the 1501 timestamps follow it).
BaseVocabulary read_hf_vocabulary(const std::filesystem::path& directory);

// A whisper.cpp ggml .bin: its vocabulary block (raw bytes, id = position) and header n_vocab.
// Single-byte tokens 0..255 stored as U+FFFD are restored (GPT-2 byte order); a trailing
// "<|endoftext|>" (English-only containers) is returned as a named special, not a base token.
BaseVocabulary read_ggml_vocabulary(const std::filesystem::path& path);

}  // namespace earshot::tokenizer
