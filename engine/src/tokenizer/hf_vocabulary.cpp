// The Hugging Face tokenizer directory reader: byte-level token strings mapped back to bytes, ids
// as ranks (for Whisper merges.txt order equals id order), added tokens kept for checking.
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "byte_unicode.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "vocab_sources.h"

namespace earshot::tokenizer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every Whisper base vocabulary has at least GPT-2's 50256 ranks; ids from here on that are
// spelled "<|...|>" are special tokens, not base tokens.
constexpr int64_t kFirstPossibleSpecial = 50256;
// <|notimestamps|> is followed by timestamp_begin and 1501 timestamps ending the vocabulary.
constexpr int64_t kIdsAfterNoTimestamps = 1502;

json read_json(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw TokenizerError(path, "cannot open the file");
    }
    try {
        return json::parse(file);
    } catch (const json::exception& e) {
        throw TokenizerError(path, std::string("malformed JSON: ") + e.what());
    }
}

bool spelled_special(std::string_view text) {
    return text.size() >= 4 && text.starts_with("<|") && text.ends_with("|>");
}

int32_t token_id(const fs::path& path, const std::string& token, const json& id) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= (1 << 24)) {
        throw TokenizerError(path, "token " + checkpoint::quote_for_message(token) +
                                       " has no valid id: " + id.dump());
    }
    return id.get<int32_t>();
}

// Splits `vocab` (spelled token -> id) into base tokens (bytes by id, which must be 0..N-1) and
// the specials it also lists.
BaseVocabulary base_from_vocab(const fs::path& path, const json& vocab,
                               const std::map<std::string, int32_t>& added) {
    if (!vocab.is_object()) {
        throw TokenizerError(path, "the vocabulary is not a JSON object");
    }
    BaseVocabulary base;
    std::map<int32_t, std::string> by_id;
    for (const auto& [spelled, id_json] : vocab.items()) {
        const int32_t id = token_id(path, spelled, id_json);
        if (added.contains(spelled) || (id >= kFirstPossibleSpecial && spelled_special(spelled))) {
            base.named_specials.emplace_back(spelled, id);
            continue;
        }
        std::optional<std::string> bytes = unicode_to_bytes(spelled);
        if (!bytes) {
            throw TokenizerError(path, "token " + checkpoint::quote_for_message(spelled) + " (id " +
                                           std::to_string(id) +
                                           ") is not in the byte-level alphabet");
        }
        if (!by_id.emplace(id, std::move(*bytes)).second) {
            throw TokenizerError(path, "id " + std::to_string(id) + " is used twice");
        }
    }
    int32_t expected = 0;
    for (auto& [id, bytes] : by_id) {
        if (id != expected) {
            throw TokenizerError(path, "base token ids are not contiguous: " +
                                           std::to_string(expected) + " is missing");
        }
        base.tokens.push_back(std::move(bytes));
        ++expected;
    }
    if (base.tokens.empty()) {
        throw TokenizerError(path, "no base tokens");
    }
    for (const auto& [name, id] : added) {
        base.named_specials.emplace_back(name, id);
    }
    return base;
}

}  // namespace

BaseVocabulary read_hf_vocabulary(const fs::path& directory) {
    const fs::path tokenizer_json = directory / "tokenizer.json";
    const fs::path vocab_json = directory / "vocab.json";
    BaseVocabulary base;
    if (fs::exists(tokenizer_json)) {
        const json doc = read_json(tokenizer_json);
        if (!doc.contains("model") || !doc["model"].contains("vocab")) {
            throw TokenizerError(tokenizer_json, "no model.vocab");
        }
        const json& model = doc["model"];
        if (model.contains("type") && model["type"] != "BPE") {
            throw TokenizerError(tokenizer_json,
                                 "model.type is " + model["type"].dump() + ", expected \"BPE\"");
        }
        std::map<std::string, int32_t> added;
        if (doc.contains("added_tokens") && doc["added_tokens"].is_array()) {
            for (const json& token : doc["added_tokens"]) {
                if (!token.contains("content") || !token["content"].is_string() ||
                    !token.contains("id")) {
                    throw TokenizerError(tokenizer_json, "an added token lacks content or id");
                }
                const auto content = token["content"].get<std::string>();
                added[content] = token_id(tokenizer_json, content, token["id"]);
            }
        }
        base = base_from_vocab(tokenizer_json, model["vocab"], added);
    } else if (fs::exists(vocab_json)) {
        if (!fs::exists(directory / "merges.txt")) {
            throw TokenizerError(directory / "merges.txt",
                                 "missing: vocab.json needs merges.txt beside it");
        }
        std::map<std::string, int32_t> added;
        if (const fs::path added_json = directory / "added_tokens.json"; fs::exists(added_json)) {
            const json doc = read_json(added_json);
            if (!doc.is_object()) {
                throw TokenizerError(added_json, "not a JSON object");
            }
            for (const auto& [content, id] : doc.items()) {
                added[content] = token_id(added_json, content, id);
            }
        }
        base = base_from_vocab(vocab_json, read_json(vocab_json), added);
    } else {
        throw TokenizerError(directory, "neither tokenizer.json nor vocab.json in the directory");
    }

    if (const fs::path config = directory / "config.json"; fs::exists(config)) {
        const json doc = read_json(config);
        if (doc.contains("vocab_size")) {
            if (!doc["vocab_size"].is_number_integer() || doc["vocab_size"].get<int64_t>() < 1) {
                throw TokenizerError(config, "vocab_size is not a positive integer");
            }
            base.n_vocab = doc["vocab_size"].get<int64_t>();
        }
    }
    if (base.n_vocab == 0) {
        for (const auto& [name, id] : base.named_specials) {
            if (name == "<|notimestamps|>") {
                base.n_vocab = id + kIdsAfterNoTimestamps;
            }
        }
    }
    return base;
}

}  // namespace earshot::tokenizer
