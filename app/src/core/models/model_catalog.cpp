// The built-in catalog of official checkpoints and the catalog file override (EARSHOT_CATALOG).
#include "core/models/model_catalog.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

namespace earshot::app {

namespace {

constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kMB = 1000 * 1000;

struct Size {
    const char* name;           // openai's size name: "tiny", "large-v3-turbo"
    int64_t ggml_bytes;         // whisper.cpp models/README.md "Disk" (rounded: 75 MiB, 1.5 GiB)
    const char* ggml_sha1;      // whisper.cpp models/README.md "SHA"; "" where it lists none
    int64_t ggml_memory_bytes;  // whisper.cpp README "Memory usage" (rounded: ~273 MB)
    // model.safetensors on the hub: the parameter count (openai/whisper README: 39 M, 74 M, 244 M,
    // 769 M, 1550 M, 809 M) times 4 bytes (float32) or 2 (float16: large-v3 and turbo).
    int64_t safetensors_bytes;
    bool english_variant;  // openai released a `.en` model of this size
    const char* languages;
    // The shape (openai/whisper's model dimensions): decoder layers, d_model, mel bands.
    int64_t decoder_layers;
    int64_t d_model;
    int64_t mels;
};

// clang-format off
constexpr Size kSizes[] = {
    {"tiny",   75 * kMiB,  "bd577a113a864445d4c299885e0cb97d4ba92b5f", 273 * kMB,  151 * kMB,  true,  "99 languages", 4, 384, 80},
    {"base",   142 * kMiB, "465707469ff3a37a2b9b8d8f89f2f99de7299dac", 388 * kMB,  290 * kMB,  true,  "99 languages", 6, 512, 80},
    {"small",  466 * kMiB, "55356645c2b361a969dfd0ef2c5a50d530afd8d5", 852 * kMB,  967 * kMB,  true,  "99 languages", 12, 768, 80},
    {"medium", 1536 * kMiB, "fd9727b6e1217c2f614f9b698455c4ffd82463b4", 2100 * kMB, 3055 * kMB, true,  "99 languages", 24, 1024, 80},
    {"large-v2", 2970 * kMiB, "0f4c8e34f21cf1a914c59d8b3ce882345ad349d6", 3900 * kMB, 6173 * kMB, false, "99 languages", 32, 1280, 80},
    {"large-v3", 2970 * kMiB, "ad82bf6a9043ceed055076d0fd39f5f186ff8062", 3900 * kMB, 3088 * kMB, false, "100 languages", 32, 1280, 128},
    // whisper.cpp's README lists neither the turbo's disk size nor its hash: 809 M float16
    // parameters; the memory is that plus large's working memory beyond its weights.
    {"large-v3-turbo", 1543 * kMiB, "", 2500 * kMB, 1618 * kMB, false, "100 languages", 4, 1280, 128},
};
// The `.en` models' SHA-1 (whisper.cpp models/README.md).
struct EnglishHash {
    const char* name;
    const char* sha1;
};
constexpr EnglishHash kEnglishSha1[] = {
    {"tiny", "c78c86eb1a8faa21b369bcd33207cc90d64ae9df"},
    {"base", "137c40403d78fd54d454da0f9bd998f78703390c"},
    {"small", "db8a495a91d927739e50b3fc1cc4c6b8f6c2d022"},
    {"medium", "8c30f0e44ce9560643ebd10bbe50cd20eafd3723"},
};
// The quantized files the hub repository ggerganov/whisper.cpp publishes (its download script's
// list). Sizes and hashes: only where whisper.cpp's README gives them (large-v2-q5_0 and
// large-v3-q5_0, 1.1 GiB); otherwise the server's length and X-Linked-Etag are used.
struct Quantized {
    const char* base;  // "base.en"
    const char* kind;  // "q5_1"
    int64_t bytes;
    const char* sha1;
};
constexpr Quantized kQuantized[] = {
    {"tiny", "q5_1", 0, ""},        {"tiny.en", "q5_1", 0, ""},     {"tiny", "q8_0", 0, ""},
    {"base", "q5_1", 0, ""},        {"base.en", "q5_1", 0, ""},     {"base", "q8_0", 0, ""},
    {"small", "q5_1", 0, ""},       {"small.en", "q5_1", 0, ""},    {"small", "q8_0", 0, ""},
    {"medium", "q5_0", 0, ""},      {"medium.en", "q5_0", 0, ""},   {"medium", "q8_0", 0, ""},
    {"large-v2", "q5_0", 1126 * kMiB, "00e39f2196344e901b3a2bd5814807a769bd1630"},
    {"large-v2", "q8_0", 0, ""},
    {"large-v3", "q5_0", 1126 * kMiB, "e6e2ed78495d403bef4b7cff42ef4aaadcfea8de"},
    {"large-v3-turbo", "q5_0", 0, ""}, {"large-v3-turbo", "q8_0", 0, ""},
};
// clang-format on

// The small files of an openai/whisper-* repository that Earshot reads, beside the weights; the
// tokenizer needs vocab.json and merges.txt (tokenizer.json and added_tokens.json are read when
// present), the decoder's defaults come from generation_config.json when there is one.
struct SmallFile {
    const char* name;
    bool optional;
};
constexpr SmallFile kHfSmallFiles[] = {
    {"config.json", false},   {"vocab.json", false},       {"merges.txt", false},
    {"tokenizer.json", true}, {"added_tokens.json", true}, {"generation_config.json", true}};

const char* english_sha1(std::string_view size) {
    for (const EnglishHash& hash : kEnglishSha1) {
        if (size == hash.name) return hash.sha1;
    }
    return "";
}

CatalogEntry hf_entry(const Size& size, bool english) {
    const std::string model = std::string(size.name) + (english ? ".en" : "");
    CatalogEntry entry;
    entry.name = "whisper-" + model;
    entry.form = ModelForm::huggingface;
    entry.repo = "openai/whisper-" + model;
    for (const SmallFile& file : kHfSmallFiles) {
        entry.files.push_back({file.name, 0, "", "", file.optional});
    }
    entry.files.push_back({"model.safetensors", size.safetensors_bytes, "", "", false});
    // Working memory beyond the weights, as whisper.cpp measures it for the same size.
    entry.memory_bytes = size.safetensors_bytes + (size.ggml_memory_bytes - size.ggml_bytes);
    entry.languages = english ? "English" : size.languages;
    entry.sizes_approximate = true;
    return entry;
}

CatalogEntry ggml_entry(std::string_view model, int64_t bytes, const char* sha1,
                        int64_t memory_bytes, std::string_view languages) {
    CatalogEntry entry;
    entry.name = "ggml-" + std::string(model);
    entry.form = ModelForm::ggml;
    entry.repo = "ggerganov/whisper.cpp";
    entry.files.push_back({entry.name + ".bin", bytes, "", sha1, false});
    entry.memory_bytes = memory_bytes;
    entry.languages = std::string(languages);
    entry.sizes_approximate = true;
    return entry;
}

// What a quantized file needs on Earshot's CPU backend beside its weights (kept in their blocks):
// the peak of a transcription with beam 5 over a full window (224 sampled tokens). The process
// itself (libraries, tokenizer, heap: 62 MiB, the rest of base.en q5_0's measured 168.4 MiB peak
// beside its 52.7 MiB file), the f32 copies of the convolutions and positions, the audio caches
// (f16, one row the beams share) and the larger of the encoder's scratch (7 + 3 f32 values per
// audio position and model dimension: its arena and the second convolution's unfolded input)
// and the self caches (f16, 5 beams, 256 positions: whole pages of 32). Measured beside a
// 1031.1 MiB large-v3 q5_0 file: 1555 MiB, this 1558 MiB; whisper.cpp 1.9.1 took 1977 MiB for
// the same transcription.
int64_t cpu_working_bytes(const Size& size) {
    constexpr int64_t kProcessBytes = 62 * kMiB;
    constexpr int64_t kAudioPositions = 1500;  // n_audio_ctx
    constexpr int64_t kTextPositions = 448;    // n_text_ctx
    const int64_t d = size.d_model;
    const int64_t layers = size.decoder_layers;
    const int64_t f32_copies =
        4 * (3 * d * d + 3 * size.mels * d + (kAudioPositions + kTextPositions) * d);
    const int64_t audio_caches = 2 * layers * kAudioPositions * d * 2;
    const int64_t encoder_scratch = kAudioPositions * d * (7 + 3) * 4;
    const int64_t self_caches = 2 * layers * 5 * 256 * d * 2;
    return kProcessBytes + f32_copies + audio_caches + std::max(encoder_scratch, self_caches);
}

// The bytes of a size's weights quantized to `kind`: its parameters (safetensors_bytes over 4 bytes
// a float32 parameter, 2 for the float16 large-v3 and turbo) times the bytes per value of the
// kind's blocks (ggml-common.h: q8_0 34 bytes per 32 values, q5_1 24, q5_0 22, q4_1 20, q4_0 18).
int64_t quantized_bytes(const Size& size, std::string_view kind) {
    const std::string_view name = size.name;
    const int64_t parameters = size.safetensors_bytes / (name.starts_with("large-v3") ? 2 : 4);
    const int64_t block_bytes = kind == "q8_0"   ? 34
                                : kind == "q5_1" ? 24
                                : kind == "q5_0" ? 22
                                : kind == "q4_1" ? 20
                                                 : 18;
    return parameters / 32 * block_bytes;
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw CatalogError("catalog " + path.string() + ": " + what);
}

}  // namespace

std::string_view model_form_name(ModelForm form) { return form == ModelForm::ggml ? "ggml" : "hf"; }

int64_t CatalogEntry::download_bytes() const {
    int64_t total = 0;
    for (const CatalogFile& file : files) total += file.size_bytes;
    return total;
}

std::string CatalogEntry::model_file() const {
    return form == ModelForm::ggml && files.size() == 1 ? files.front().name : std::string();
}

std::vector<CatalogEntry> builtin_catalog() {
    std::vector<CatalogEntry> catalog;
    for (const Size& size : kSizes) {
        catalog.push_back(hf_entry(size, false));
        if (size.english_variant) catalog.push_back(hf_entry(size, true));
    }
    for (const Size& size : kSizes) {
        catalog.push_back(ggml_entry(size.name, size.ggml_bytes, size.ggml_sha1,
                                     size.ggml_memory_bytes, size.languages));
        if (size.english_variant) {
            catalog.push_back(ggml_entry(std::string(size.name) + ".en", size.ggml_bytes,
                                         english_sha1(size.name), size.ggml_memory_bytes,
                                         "English"));
        }
    }
    for (const Quantized& q : kQuantized) {
        const std::string base = q.base;
        const bool english = base.ends_with(".en");
        const std::string size_name = english ? base.substr(0, base.size() - 3) : base;
        const Size* size = nullptr;
        for (const Size& s : kSizes) {
            if (size_name == s.name) size = &s;
        }
        // Memory: Earshot keeps quantized weights in their blocks, so a quantized file needs its
        // own bytes (the download's size, else estimated from the parameter count) plus what the
        // CPU backend needs beside them for its shape.
        const int64_t weights_bytes = q.bytes > 0 ? q.bytes : quantized_bytes(*size, q.kind);
        catalog.push_back(ggml_entry(base + "-" + q.kind, q.bytes, q.sha1,
                                     weights_bytes + cpu_working_bytes(*size),
                                     english ? "English" : size->languages));
    }
    return catalog;
}

std::vector<CatalogEntry> read_catalog_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) fail(path, "cannot open it");
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        fail(path, std::string("not JSON: ") + e.what());
    }
    if (!json.is_object() || !json.contains("models") || !json["models"].is_array()) {
        fail(path, "expected an object with a \"models\" array");
    }
    std::vector<CatalogEntry> entries;
    try {
        for (const nlohmann::json& item : json["models"]) {
            CatalogEntry entry;
            entry.name = item.at("name").get<std::string>();
            const std::string form = item.at("form").get<std::string>();
            if (form != "hf" && form != "ggml") {
                fail(path, entry.name + ": form \"" + form + "\" is neither hf nor ggml");
            }
            entry.form = form == "ggml" ? ModelForm::ggml : ModelForm::huggingface;
            entry.repo = item.at("repo").get<std::string>();
            entry.memory_bytes = item.value("memory_bytes", int64_t{0});
            entry.languages = item.value("languages", std::string());
            for (const nlohmann::json& f : item.at("files")) {
                entry.files.push_back({f.at("name").get<std::string>(),
                                       f.value("size_bytes", int64_t{0}),
                                       f.value("sha256", std::string()),
                                       f.value("sha1", std::string()), f.value("optional", false)});
            }
            if (entry.name.empty() || entry.files.empty()) {
                fail(path, "an entry needs a name and at least one file");
            }
            if (entry.form == ModelForm::ggml && entry.files.size() != 1) {
                fail(path, entry.name + ": a ggml model is one file");
            }
            entries.push_back(std::move(entry));
        }
    } catch (const nlohmann::json::exception& e) {
        fail(path, e.what());
    }
    return entries;
}

std::vector<CatalogEntry> model_catalog() {
    std::vector<CatalogEntry> catalog = builtin_catalog();
    const char* file = std::getenv("EARSHOT_CATALOG");
    if (file == nullptr || *file == 0) return catalog;
    for (CatalogEntry& extra : read_catalog_file(file)) {
        bool replaced = false;
        for (CatalogEntry& entry : catalog) {
            if (entry.name == extra.name) {
                entry = extra;
                replaced = true;
            }
        }
        if (!replaced) catalog.push_back(std::move(extra));
    }
    return catalog;
}

const CatalogEntry* find_catalog_entry(const std::vector<CatalogEntry>& catalog,
                                       std::string_view name) {
    for (const CatalogEntry& entry : catalog) {
        if (entry.name == name) return &entry;
    }
    return nullptr;
}

}  // namespace earshot::app
