// read_whisper_config: finds the format of a checkpoint path and reads its hyper-parameters and
// weight dtype from config.json plus safetensors headers, or from a ggml header.
#include "earshot/engine/checkpoint/whisper_config.h"

#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/safetensors.h"
#include "hf_pickle_refusal.h"
#include "json_file.h"

namespace earshot::checkpoint {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct DtypeChoice {
    std::string weight_dtype;
    std::string dtype_source;
};

bool regular_file_exists(const fs::path& path) {
    std::error_code error;
    return fs::is_regular_file(path, error);
}

int64_t require_int(const json& config, const fs::path& path, const char* field) {
    const auto it = config.find(field);
    if (it == config.end()) {
        throw CheckpointError(path, std::string("missing field \"") + field + "\"");
    }
    const auto bad = [&](const std::string& why) {
        return CheckpointError(
            path, std::string("field \"") + field + "\" " + why + " (got " + it->dump() + ")");
    };
    if (it->is_number_unsigned()) {
        if (it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            throw bad("is too large");
        }
        return static_cast<int64_t>(it->get<uint64_t>());
    }
    if (it->is_number_integer()) {
        throw bad("is negative");
    }
    throw bad("is not an integer");
}

// "dtype" / "torch_dtype" of config.json, or nullopt when neither is there.
std::optional<DtypeChoice> dtype_from_config(const json& config, const fs::path& path) {
    for (const char* field : {"dtype", "torch_dtype"}) {
        const auto it = config.find(field);
        if (it == config.end() || it->is_null()) {
            continue;
        }
        if (!it->is_string()) {
            throw CheckpointError(path, std::string("field \"") + field +
                                            "\" is not a string (got " + it->dump() + ")");
        }
        std::string value = it->get<std::string>();
        if (value.rfind("torch.", 0) == 0) {
            value = value.substr(6);
        }
        static const std::map<std::string, std::string> names = {
            {"float32", "f32"}, {"float16", "f16"}, {"bfloat16", "bf16"}};
        const auto known = names.find(value);
        if (known == names.end()) {
            throw CheckpointError(path, std::string("field \"") + field + "\" is " +
                                            quote_for_message(it->get<std::string>()) +
                                            "; expected float32, float16 or bfloat16");
        }
        return DtypeChoice{known->second, std::string(field) + " in config.json"};
    }
    return std::nullopt;
}

// Elements per floating dtype over the tensors of one or more safetensors headers.
class FloatingCensus {
public:
    void add(const SafetensorsHeader& header) {
        for (const auto& tensor : header.tensors) {
            if (is_floating(tensor.dtype)) {
                elements_[tensor.dtype] += element_count(tensor);
                seen_ = true;
            }
        }
    }

    // The majority dtype, or nullopt when no floating tensor was seen. Ties go to the wider type.
    std::optional<SafetensorsDType> majority() const {
        if (!seen_) {
            return std::nullopt;
        }
        std::optional<SafetensorsDType> best;
        uint64_t best_elements = 0;
        for (const auto& [dtype, elements] : elements_) {
            if (!best || elements > best_elements ||
                (elements == best_elements && dtype_size_bytes(dtype) > dtype_size_bytes(*best))) {
                best = dtype;
                best_elements = elements;
            }
        }
        return best;
    }

private:
    std::map<SafetensorsDType, uint64_t> elements_;
    bool seen_ = false;
};

std::optional<DtypeChoice> choice_from_census(const FloatingCensus& census, const fs::path& where,
                                              const std::string& source) {
    const auto majority = census.majority();
    if (!majority) {
        return std::nullopt;
    }
    switch (*majority) {
        case SafetensorsDType::f32:
            return DtypeChoice{"f32", source};
        case SafetensorsDType::f16:
            return DtypeChoice{"f16", source};
        case SafetensorsDType::bf16:
            return DtypeChoice{"bf16", source};
        default:
            throw CheckpointError(where, "weights are mostly " +
                                             std::string(dtype_name(*majority)) +
                                             "; only F32, F16 and BF16 are supported");
    }
}

std::optional<DtypeChoice> dtype_from_safetensors_file(const fs::path& file) {
    FloatingCensus census;
    census.add(read_safetensors_header(file));
    return choice_from_census(census, file,
                              "safetensors header (" + file.filename().string() + ")");
}

// Every shard named in the index's weight_map, each header read once.
std::optional<DtypeChoice> dtype_from_safetensors_index(const fs::path& index_path) {
    const json index = read_json_file(index_path);
    const auto map = index.find("weight_map");
    if (!index.is_object() || map == index.end() || !map->is_object()) {
        throw CheckpointError(index_path, "missing object field \"weight_map\"");
    }
    std::set<std::string> shards;
    for (const auto& [tensor, shard] : map->items()) {
        if (!shard.is_string()) {
            throw CheckpointError(index_path, tensor, "weight_map entry is not a file name");
        }
        shards.insert(shard.get<std::string>());
    }
    FloatingCensus census;
    for (const auto& shard : shards) {
        const fs::path shard_path = index_path.parent_path() / shard;
        if (!regular_file_exists(shard_path)) {
            throw CheckpointError(index_path, "weight_map names shard " + quote_for_message(shard) +
                                                  ", which does not exist (" + shard_path.string() +
                                                  ")");
        }
        census.add(read_safetensors_header(shard_path));
    }
    return choice_from_census(census, index_path,
                              "safetensors headers (" + std::to_string(shards.size()) +
                                  " shards in " + index_path.filename().string() + ")");
}

void read_hf_fields(const fs::path& config_path, WhisperConfig& config) {
    const json root = read_json_file(config_path);
    if (!root.is_object()) {
        throw CheckpointError(config_path, "top level is a JSON " + std::string(root.type_name()) +
                                               ", not an object");
    }
    config.n_mels = require_int(root, config_path, "num_mel_bins");
    config.n_audio_ctx = require_int(root, config_path, "max_source_positions");
    config.n_audio_state = require_int(root, config_path, "d_model");
    config.n_audio_head = require_int(root, config_path, "encoder_attention_heads");
    config.n_audio_layer = require_int(root, config_path, "encoder_layers");
    config.n_audio_ffn = require_int(root, config_path, "encoder_ffn_dim");
    config.n_text_ctx = require_int(root, config_path, "max_target_positions");
    config.n_text_state = config.n_audio_state;
    config.n_text_head = require_int(root, config_path, "decoder_attention_heads");
    config.n_text_layer = require_int(root, config_path, "decoder_layers");
    config.n_text_ffn = require_int(root, config_path, "decoder_ffn_dim");
    config.n_vocab = require_int(root, config_path, "vocab_size");

    auto choice = dtype_from_config(root, config_path);
    if (!choice) {
        choice = DtypeChoice{"f32", "default (no dtype in checkpoint)"};
    }
    config.weight_dtype = choice->weight_dtype;
    config.dtype_source = choice->dtype_source;
}

void apply_dtype(const std::optional<DtypeChoice>& choice, WhisperConfig& config) {
    if (choice) {
        config.weight_dtype = choice->weight_dtype;
        config.dtype_source = choice->dtype_source;
    }
}

WhisperConfig read_hf_directory(const fs::path& source, const fs::path& directory) {
    const fs::path config_path = directory / "config.json";
    if (!regular_file_exists(config_path)) {
        throw CheckpointError(source, "directory has no config.json");
    }
    WhisperConfig config;
    config.format = CheckpointFormat::hf_directory;
    config.source = source;
    read_hf_fields(config_path, config);
    const fs::path single = directory / "model.safetensors";
    const fs::path index = directory / "model.safetensors.index.json";
    if (regular_file_exists(single)) {
        apply_dtype(dtype_from_safetensors_file(single), config);
    } else if (regular_file_exists(index)) {
        apply_dtype(dtype_from_safetensors_index(index), config);
    } else if (const auto pickle = pickle_weights_in(directory)) {
        refuse_pickle_weights(*pickle);
    }
    return config;
}

WhisperConfig read_safetensors_path(const fs::path& source) {
    const fs::path config_path = source.parent_path() / "config.json";
    if (!regular_file_exists(config_path)) {
        throw CheckpointError(
            source, "no config.json beside the safetensors file (" + config_path.string() + ")");
    }
    WhisperConfig config;
    config.format = CheckpointFormat::safetensors_file;
    config.source = source;
    read_hf_fields(config_path, config);
    apply_dtype(dtype_from_safetensors_file(source), config);
    return config;
}

// ffn size from a first-layer mlp.0 weight: a Linear [ffn, state] has ggml ne = [state, ffn].
int64_t ggml_ffn(const GgmlFile& file, const char* tensor_name, int64_t state) {
    for (const auto& tensor : file.tensors) {
        if (tensor.name == tensor_name && tensor.ne.size() == 2) {
            return tensor.ne[1];
        }
    }
    return 4 * state;  // whisper.cpp: n_audio_state * 4, n_text_state * 4
}

// ggml.h's enum ggml_ftype for the quantized whole-file types; nullptr for any other value.
const char* quantized_ftype_name(int32_t ggml_ftype) {
    switch (ggml_ftype) {
        case 2:
            return "q4_0";
        case 3:
            return "q4_1";
        case 4:
            return "q4_1 with some f16";
        case 7:
            return "q8_0";
        case 8:
            return "q5_0";
        case 9:
            return "q5_1";
        case 10:
            return "q2_k";
        case 11:
            return "q3_k";
        case 12:
            return "q4_k";
        case 13:
            return "q5_k";
        case 14:
            return "q6_k";
        default:
            return nullptr;
    }
}

WhisperConfig read_ggml_path(const fs::path& source) {
    const GgmlFile file = read_ggml_file(source);
    const GgmlHparams& hp = file.hparams;
    const int32_t ggml_ftype = hp.ftype % 1000;  // ftype = qnt_version * 1000 + ggml_ftype
    WhisperConfig config;
    config.format = CheckpointFormat::ggml_file;
    config.source = source;
    config.n_mels = hp.n_mels;
    config.n_audio_ctx = hp.n_audio_ctx;
    config.n_audio_state = hp.n_audio_state;
    config.n_audio_head = hp.n_audio_head;
    config.n_audio_layer = hp.n_audio_layer;
    config.n_audio_ffn = ggml_ffn(file, "encoder.blocks.0.mlp.0.weight", hp.n_audio_state);
    config.n_text_ctx = hp.n_text_ctx;
    config.n_text_state = hp.n_text_state;
    config.n_text_head = hp.n_text_head;
    config.n_text_layer = hp.n_text_layer;
    config.n_text_ffn = ggml_ffn(file, "decoder.blocks.0.mlp.0.weight", hp.n_text_state);
    config.n_vocab = hp.n_vocab;
    config.dtype_source = "ggml ftype " + std::to_string(hp.ftype);
    if (ggml_ftype == 0) {
        config.weight_dtype = "f32";
    } else if (ggml_ftype == 1) {
        config.weight_dtype = "f16";
    } else if (const char* quantized = quantized_ftype_name(ggml_ftype)) {
        // Quantized tensors keep their blocks (read_weights); the program computes them as f16.
        config.weight_dtype = "f16";
        config.dtype_source += std::string(" (mostly ") + quantized + ", kept in its blocks)";
    } else {
        throw CheckpointError(source, "ggml ftype " + std::to_string(hp.ftype) +
                                          " is not a file type Earshot knows (f32, f16, q4_0, "
                                          "q4_1, q5_0, q5_1, q8_0, q2_k .. q6_k)");
    }
    return config;
}

}  // namespace

std::string_view format_name(CheckpointFormat format) {
    switch (format) {
        case CheckpointFormat::hf_directory:
            return "hf_directory";
        case CheckpointFormat::safetensors_file:
            return "safetensors_file";
        case CheckpointFormat::ggml_file:
            return "ggml_file";
    }
    return "unknown";
}

WhisperConfig read_whisper_config(const fs::path& path) {
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) {
        throw CheckpointError(path, "no such file or directory");
    }
    if (fs::is_directory(status)) {
        return read_hf_directory(path, path);
    }
    if (!fs::is_regular_file(status)) {
        throw CheckpointError(path, "not a regular file or directory");
    }
    if (is_ggml_file(path)) {
        return read_ggml_path(path);
    }
    if (path.extension() == ".safetensors") {
        return read_safetensors_path(path);
    }
    if (path.filename() == "config.json") {
        return read_hf_directory(path, path.parent_path());
    }
    throw CheckpointError(path,
                          "not a recognised checkpoint: expected a directory with "
                          "config.json, a .safetensors file or a whisper.cpp ggml .bin");
}

}  // namespace earshot::checkpoint
