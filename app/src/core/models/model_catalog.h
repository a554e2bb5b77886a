// The catalog of official Whisper checkpoints Earshot can download: openai's Hugging Face
// repositories and whisper.cpp's ggml files, with sizes, memory and the published hashes; plus
// the entries of a catalog file named by EARSHOT_CATALOG.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::app {

enum class ModelForm { huggingface, ggml };

std::string_view model_form_name(ModelForm form);  // "hf", "ggml"

struct CatalogFile {
    std::string name;        // path in the repository, and in the model's folder
    int64_t size_bytes = 0;  // 0: not published; the server's length is used
    std::string sha256;      // lower-case hex; empty: none published (the hub's X-Linked-Etag)
    std::string sha1;        // lower-case hex (whisper.cpp publishes SHA-1 of its ggml files)
    // Skipped when the repository does not have it (404): a tokenizer.json beside vocab.json and
    // merges.txt, generation_config.json.
    bool optional = false;
};

struct CatalogEntry {
    std::string name;  // "whisper-base.en", "ggml-base.en", "ggml-base.en-q5_1"
    ModelForm form = ModelForm::huggingface;
    std::string repo;  // on the hub: "openai/whisper-base.en", "ggerganov/whisper.cpp"
    std::vector<CatalogFile> files;
    int64_t memory_bytes = 0;        // about what running it needs; 0: not known
    std::string languages;           // "English", "99 languages"
    bool sizes_approximate = false;  // the sizes are rounded published figures, not byte counts

    // The sum of the files' known sizes.
    int64_t download_bytes() const;
    // The file `--model` is given for a ggml model (its one file); empty for a folder model.
    std::string model_file() const;
};

class CatalogError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The official checkpoints, in size order.
std::vector<CatalogEntry> builtin_catalog();

// Entries from a JSON file: {"models": [{"name", "form": "hf"|"ggml", "repo", "files": [{"name",
// "size_bytes", "sha256", "sha1", "optional"}], "memory_bytes", "languages"}]}. Throws CatalogError
// naming the file and what is wrong.
std::vector<CatalogEntry> read_catalog_file(const std::filesystem::path& path);

// builtin_catalog(), plus the entries of the file EARSHOT_CATALOG names (one of the same name
// replaces the built-in one). Throws CatalogError when that file cannot be read.
std::vector<CatalogEntry> model_catalog();

// The entry called `name`, or nullptr.
const CatalogEntry* find_catalog_entry(const std::vector<CatalogEntry>& catalog,
                                       std::string_view name);

}  // namespace earshot::app
