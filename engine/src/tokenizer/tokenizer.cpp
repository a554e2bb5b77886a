// Tokenizer: source detection, the vocabulary size and its special-token layout, and openai's
// encode / decode / language / non-speech semantics over the byte-level BPE.
#include "earshot/engine/tokenizer/tokenizer.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include "byte_pair_encoder.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "utf8.h"
#include "vocab_sources.h"

namespace earshot::tokenizer {
namespace {

namespace fs = std::filesystem;

// openai's tiktoken files: the GPT-2 ranks (English-only) and the multilingual ranks with the
// empty token 50256 (whisper-inference.md §4.1, §4.2).
constexpr int64_t kGpt2BaseRanks = 50256;
constexpr int64_t kMultilingualBaseRanks = 50257;

BaseVocabulary read_source(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        throw TokenizerError(path, "no such file or directory");
    }
    if (fs::is_directory(path, ec)) {
        return read_hf_vocabulary(path);
    }
    const fs::path name = path.filename();
    if (name == "tokenizer.json" || name == "vocab.json") {
        return read_hf_vocabulary(path.has_parent_path() ? path.parent_path() : fs::path("."));
    }
    if (checkpoint::is_ggml_file(path)) {
        return read_ggml_vocabulary(path);
    }
    return read_tiktoken_vocabulary(path);
}

int64_t resolve_n_vocab(const fs::path& path, const BaseVocabulary& base, int64_t requested) {
    if (requested < 0) {
        throw TokenizerError(path,
                             "n_vocab must not be negative, got " + std::to_string(requested));
    }
    if (requested > 0) {
        return requested;
    }
    if (base.n_vocab > 0) {
        return base.n_vocab;
    }
    const auto base_size = static_cast<int64_t>(base.tokens.size());
    if (base_size == kMultilingualBaseRanks) {
        return kMultilingualVocab;
    }
    if (base_size == kGpt2BaseRanks) {
        return kEnglishOnlyVocab;
    }
    throw TokenizerError(path, "cannot tell n_vocab from a base vocabulary of " +
                                   std::to_string(base_size) + " tokens; give it explicitly");
}

}  // namespace

Tokenizer::Tokenizer(std::shared_ptr<const BytePairEncoder> bpe, int64_t n_vocab)
    : bpe_(std::move(bpe)), n_vocab_(n_vocab), specials_(special_tokens(n_vocab)) {}

Tokenizer Tokenizer::load(const fs::path& path, int64_t n_vocab) {
    BaseVocabulary base = read_source(path);
    const int64_t resolved = resolve_n_vocab(path, base, n_vocab);
    SpecialTokens specials;
    try {
        specials = special_tokens(resolved);
    } catch (const TokenizerError& e) {
        throw TokenizerError(path, e.what());
    }
    const auto base_size = static_cast<int64_t>(base.tokens.size());
    if (base_size != specials.eot) {
        throw TokenizerError(path, "the base vocabulary has " + std::to_string(base_size) +
                                       " tokens, but n_vocab " + std::to_string(resolved) +
                                       " needs " + std::to_string(specials.eot) +
                                       " (<|endoftext|> follows them)");
    }
    for (const auto& [name, id] : base.named_specials) {
        const int32_t expected = special_token_id(specials, name);
        if (expected >= 0 && expected != id) {
            throw TokenizerError(path, "the source puts " + name + " at " + std::to_string(id) +
                                           ", but n_vocab " + std::to_string(resolved) +
                                           " puts it at " + std::to_string(expected));
        }
    }
    auto bpe =
        std::make_shared<const BytePairEncoder>(std::move(base.tokens), path.filename().string());
    return Tokenizer(std::move(bpe), resolved);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
    std::vector<int32_t> ids;
    bpe_->encode(text, ids);
    return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
    std::string bytes;
    for (const int32_t id : ids) {
        if (id < 0) {
            throw TokenizerError("cannot decode token id " + std::to_string(id));
        }
        if (id >= specials_.timestamp_begin) {
            continue;  // openai drops timestamps (and anything past them) before decoding
        }
        if (id < specials_.eot) {
            bytes += bpe_->token_bytes(id);
        } else {
            bytes += special_token_name(specials_, id);
        }
    }
    std::string text;
    append_utf8_replacing_invalid(bytes, text);
    return text;
}

std::string Tokenizer::decode_text(std::span<const int32_t> ids) const {
    std::string bytes;
    for (const int32_t id : ids) {
        if (id < 0) {
            throw TokenizerError("cannot decode token id " + std::to_string(id));
        }
        if (id < specials_.eot) {
            bytes += bpe_->token_bytes(id);
        }
    }
    std::string text;
    append_utf8_replacing_invalid(bytes, text);
    return text;
}

int32_t Tokenizer::language_token(std::string_view code) const {
    if (code == "iw") {
        code = "he";  // Hebrew's deprecated code, same slot
    }
    const auto codes = language_codes();
    const auto it = std::find(codes.begin(), codes.end(), code);
    if (it == codes.end()) {
        return -1;
    }
    const auto index = static_cast<int32_t>(it - codes.begin());
    return index < specials_.num_languages ? specials_.first_language + index : -1;
}

std::string_view Tokenizer::language_code(int32_t token) const {
    const int32_t index = token - specials_.first_language;
    const auto codes = language_codes();
    if (index < 0 || index >= specials_.num_languages ||
        static_cast<size_t>(index) >= codes.size()) {
        return "";
    }
    return codes[static_cast<size_t>(index)];
}

std::vector<int32_t> Tokenizer::non_speech_tokens() const {
    // openai whisper/tokenizer.py `non_speech_tokens` (whisper-inference.md §5.2): symbols that
    // stay a single token alone or after a space; the music symbols U+2669..U+266F contribute their
    // first token whatever they encode to; " -" and " '" are always in.
    static constexpr std::array<std::string_view, 47> kSymbols{
        "\"",  "#",  "(",  ")",   "*",   "+",   "/",   ":",  ";",   "<",  "=",  ">",
        "@",   "[",  "\\", "]",   "^",   "_",   "`",   "{",  "|",   "}",  "~",  "「",
        "」",  "『", "』", "<<",  ">>",  "<<<", ">>>", "--", "---", "-(", "-[", "('",
        "(\"", "((", "))", "(((", ")))", "[[",  "]]",  "{{", "}}",  "♪♪", "♪♪♪"};
    static constexpr std::array<std::string_view, 7> kMusic{"♩", "♪", "♫", "♬", "♭", "♮", "♯"};

    std::set<int32_t> result{encode(" -").front(), encode(" '").front()};
    const auto add = [&](std::string_view symbol, bool first_token_always) {
        for (const std::string& text : {std::string(symbol), " " + std::string(symbol)}) {
            const std::vector<int32_t> ids = encode(text);
            if (ids.size() == 1 || (first_token_always && !ids.empty())) {
                result.insert(ids.front());
            }
        }
    };
    for (const std::string_view symbol : kSymbols) add(symbol, false);
    for (const std::string_view symbol : kMusic) add(symbol, true);
    return {result.begin(), result.end()};
}

std::string Tokenizer::token_name(int32_t id) const {
    if (id < 0 || id >= n_vocab_) {
        throw TokenizerError("token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                             std::to_string(n_vocab_) + ")");
    }
    if (id < specials_.eot) {
        return escape_invalid_utf8(bpe_->token_bytes(id));
    }
    return special_token_name(specials_, id);
}

}  // namespace earshot::tokenizer
