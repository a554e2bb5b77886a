// read_weights: maps the weight files of a checkpoint (one safetensors file, HF shards or a ggml
// container) and names every tensor by program path; convert_to_f32 widens one weight.
#include "earshot/engine/checkpoint/weight_set.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/safetensors.h"
#include "hf_pickle_refusal.h"
#include "weight_names.h"

namespace earshot::checkpoint {

static_assert(std::endian::native == std::endian::little,
              "weights are read in place as little-endian values");

namespace {

namespace fs = std::filesystem;

struct PendingProjection {
    Weight weight;  // proj_out.weight, checked against the token embedding once all are read
};

std::optional<WeightDType> weight_dtype_of(SafetensorsDType dtype) {
    switch (dtype) {
        case SafetensorsDType::f32:
            return WeightDType::f32;
        case SafetensorsDType::f16:
            return WeightDType::f16;
        case SafetensorsDType::bf16:
            return WeightDType::bf16;
        default:
            return std::nullopt;
    }
}

std::string param_note(const std::optional<std::string>& path) {
    return path ? " (parameter " + *path + ")" : std::string();
}

void read_safetensors_weights(const fs::path& file, WeightSet& set,
                              std::optional<PendingProjection>& projection) {
    const SafetensorsHeader header = read_safetensors_header(file);
    const MappedFile& mapped = set.keep(MappedFile(file));
    if (mapped.size_bytes() != header.file_size_bytes) {
        throw CheckpointError(file, "changed size while being read");
    }
    for (const auto& tensor : header.tensors) {
        const bool is_projection = tensor.name == hf_output_projection;
        std::optional<std::string> path = program_path_from_hf(tensor.name);
        const auto dtype = weight_dtype_of(tensor.dtype);
        if (!dtype) {
            throw CheckpointError(file, tensor.name,
                                  "dtype " + std::string(dtype_name(tensor.dtype)) +
                                      " is not a supported float type (F32, F16, BF16)" +
                                      param_note(path));
        }
        Weight weight;
        weight.path = path.value_or(std::string());
        weight.source_name = tensor.name;
        weight.file = file;
        weight.dtype = *dtype;
        weight.shape = tensor.shape;
        weight.bytes = mapped.bytes().subspan(header.data_offset_bytes + tensor.begin_bytes,
                                              tensor.end_bytes - tensor.begin_bytes);
        if (is_projection) {
            if (projection) {
                throw CheckpointError(file, tensor.name, "appears in two shards");
            }
            projection = PendingProjection{std::move(weight)};
        } else {
            set.add(std::move(weight));
        }
    }
}

nlohmann::json read_json(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CheckpointError(path, "cannot open for reading");
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& error) {
        throw CheckpointError(path, "malformed JSON: " + std::string(error.what()));
    }
}

// Every shard of the index, each once; then every weight_map entry must be where it says.
void read_sharded_weights(const fs::path& index_path, WeightSet& set,
                          std::optional<PendingProjection>& projection) {
    const nlohmann::json index = read_json(index_path);
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (map == index.end() || !map->is_object()) {
        throw CheckpointError(index_path, "missing object field \"weight_map\"");
    }
    std::map<std::string, std::string> shard_of;
    for (const auto& [tensor, shard] : map->items()) {
        if (!shard.is_string()) {
            throw CheckpointError(index_path, tensor, "weight_map entry is not a file name");
        }
        shard_of[tensor] = shard.get<std::string>();
    }
    std::map<std::string, bool> shards;
    for (const auto& [tensor, shard] : shard_of) shards[shard] = true;
    for (const auto& [shard, unused] : shards) {
        read_safetensors_weights(index_path.parent_path() / shard, set, projection);
    }
    std::map<std::string, fs::path> file_of;
    for (const auto& weight : set.weights()) file_of[weight.source_name] = weight.file;
    if (projection) file_of[projection->weight.source_name] = projection->weight.file;
    for (const auto& [tensor, shard] : shard_of) {
        const auto found = file_of.find(tensor);
        if (found == file_of.end() || found->second.filename() != fs::path(shard).filename()) {
            throw CheckpointError(
                index_path, tensor,
                "weight_map puts it in " + quote_for_message(shard) + ", which does not hold it");
        }
    }
}

// Every row of a quantized tensor ([rows, ne[0]] values) must be whole blocks. The reader sized the
// data from the layout; a mismatch here is a broken invariant of the file.
void check_whole_rows(const fs::path& file, const GgmlTensorInfo& tensor,
                      std::span<const std::byte> stored) {
    const GgmlBlockLayout layout = ggml_block_layout(tensor.ttype);
    const uint64_t row_values = static_cast<uint64_t>(tensor.ne.at(0));
    const uint64_t row_bytes = row_values / layout.elements * layout.bytes;
    if (row_values % layout.elements != 0 || row_bytes == 0 || stored.size() % row_bytes != 0) {
        throw CheckpointError(file, tensor.name,
                              std::to_string(stored.size()) + " bytes of " +
                                  std::string(ggml_type_name(tensor.ttype)) +
                                  " data do not hold whole rows of " + std::to_string(row_values) +
                                  " values");
    }
}

void read_ggml_weights(const fs::path& file, WeightSet& set) {
    const GgmlFile container = read_ggml_file(file);
    if (container.tensors.empty()) return;  // whisper.cpp's test models: no weights at all
    const MappedFile& mapped = set.keep(MappedFile(file));
    if (mapped.size_bytes() != container.file_size_bytes) {
        throw CheckpointError(file, "changed size while being read");
    }
    for (const auto& tensor : container.tensors) {
        std::optional<std::string> path = program_path_from_openai(tensor.name);
        Weight weight;
        weight.path = path.value_or(std::string());
        weight.source_name = tensor.name;
        weight.file = file;
        weight.dtype = tensor.ttype == GgmlType::f32   ? WeightDType::f32
                       : tensor.ttype == GgmlType::f16 ? WeightDType::f16
                                                       : WeightDType::ggml_blocks;
        weight.blocks = is_quantized(tensor.ttype) ? tensor.ttype : GgmlType::f32;
        weight.shape.assign(tensor.ne.rbegin(), tensor.ne.rend());  // ggml order is innermost first
        // whisper.cpp's converter stores the conv biases as [D, 1]; the program's are [D].
        if ((weight.path == "conv1_bias" || weight.path == "conv2_bias") &&
            weight.shape.size() == 2 && weight.shape[1] == 1) {
            weight.shape.pop_back();
        }
        const auto stored = mapped.bytes().subspan(tensor.data_offset_bytes, tensor.size_bytes);
        if (is_quantized(tensor.ttype)) check_whole_rows(file, tensor, stored);
        weight.bytes = stored;
        set.add(std::move(weight));
    }
}

// proj_out.weight is the head; the program ties the head to token_embedding, so it must be the
// same tensor byte for byte.
void check_projection(const PendingProjection& projection, const WeightSet& set) {
    const Weight& head = projection.weight;
    const Weight* embedding = set.find("token_embedding");
    const bool tied =
        embedding != nullptr && embedding->dtype == head.dtype && embedding->shape == head.shape &&
        embedding->bytes.size() == head.bytes.size() &&
        std::memcmp(embedding->bytes.data(), head.bytes.data(), head.bytes.size()) == 0;
    if (!tied) {
        throw CheckpointError(head.file, head.source_name,
                              "an untied output projection is not part of the Whisper program "
                              "(the head reuses the token embedding; these bytes differ from " +
                                  (embedding != nullptr ? embedding->source_name
                                                        : std::string("a missing embedding")) +
                                  ")");
    }
}

fs::path hf_directory_of(const fs::path& source) {
    std::error_code error;
    return fs::is_directory(source, error) ? source : source.parent_path();
}

}  // namespace

std::string_view weight_dtype_name(WeightDType dtype) {
    switch (dtype) {
        case WeightDType::f32:
            return "f32";
        case WeightDType::f16:
            return "f16";
        case WeightDType::bf16:
            return "bf16";
        case WeightDType::ggml_blocks:
            return "ggml blocks";
    }
    return "unknown";
}

std::size_t weight_dtype_size_bytes(WeightDType dtype) {
    switch (dtype) {
        case WeightDType::f32:
            return 4;
        case WeightDType::f16:
        case WeightDType::bf16:
            return 2;
        case WeightDType::ggml_blocks:
            break;
    }
    return 0;
}

uint64_t Weight::element_count() const {
    uint64_t count = 1;
    for (const int64_t dim : shape) count *= static_cast<uint64_t>(dim);
    return count;
}

uint64_t Weight::stored_bytes() const {
    if (dtype != WeightDType::ggml_blocks) return element_count() * weight_dtype_size_bytes(dtype);
    const GgmlBlockLayout layout = ggml_block_layout(blocks);
    return element_count() / layout.elements * layout.bytes;
}

const Weight* WeightSet::find(std::string_view path) const {
    const auto found = by_path_.find(path);
    return found == by_path_.end() ? nullptr : &weights_[found->second];
}

const MappedFile& WeightSet::keep(MappedFile file) {
    files_.push_back(std::move(file));
    return files_.back();
}

void WeightSet::release_files() {
    for (Weight& weight : weights_) {
        const auto begin = reinterpret_cast<uintptr_t>(weight.bytes.data());
        for (const MappedFile& file : files_) {
            const auto file_begin = reinterpret_cast<uintptr_t>(file.bytes().data());
            if (begin >= file_begin && begin < file_begin + file.size_bytes()) {
                weight.bytes = {};
                break;
            }
        }
    }
    files_.clear();
}

std::string_view WeightSet::quantized_as(std::string_view path) const {
    const Weight* weight = find(path);
    if (weight == nullptr || weight->dtype != WeightDType::ggml_blocks) return {};
    return ggml_type_name(weight->blocks);
}

std::span<const std::byte> WeightSet::own(std::shared_ptr<const std::byte[]> bytes,
                                          std::size_t size_bytes) {
    owned_.push_back(std::move(bytes));
    return {owned_.back().get(), size_bytes};
}

void WeightSet::add(Weight weight) {
    if (!weight.path.empty()) {
        const auto [it, inserted] = by_path_.emplace(weight.path, weights_.size());
        if (!inserted) {
            const Weight& other = weights_[it->second];
            throw CheckpointError(weight.file, weight.source_name,
                                  "is parameter " + weight.path + ", which " + other.source_name +
                                      " in " + other.file.filename().string() +
                                      " already provides");
        }
    }
    weights_.push_back(std::move(weight));
}

WeightSet read_weights(const WhisperConfig& config) {
    WeightSet set;
    std::optional<PendingProjection> projection;
    switch (config.format) {
        case CheckpointFormat::ggml_file:
            read_ggml_weights(config.source, set);
            break;
        case CheckpointFormat::safetensors_file:
            read_safetensors_weights(config.source, set, projection);
            break;
        case CheckpointFormat::hf_directory: {
            const fs::path directory = hf_directory_of(config.source);
            const fs::path single = directory / "model.safetensors";
            const fs::path index = directory / "model.safetensors.index.json";
            std::error_code error;
            if (fs::is_regular_file(single, error)) {
                read_safetensors_weights(single, set, projection);
            } else if (fs::is_regular_file(index, error)) {
                read_sharded_weights(index, set, projection);
            } else if (const auto pickle = pickle_weights_in(directory)) {
                refuse_pickle_weights(*pickle);
            } else {
                throw CheckpointError(directory,
                                      "no model.safetensors or model.safetensors.index.json");
            }
            break;
        }
    }
    if (projection) check_projection(*projection, set);
    return set;
}

void convert_to_f32(const Weight& w, std::span<float> out) {
    const uint64_t count = w.element_count();
    if (out.size() != count || w.bytes.size() != w.stored_bytes()) {
        throw std::invalid_argument("convert_to_f32: " + w.path + " has " + std::to_string(count) +
                                    " elements in " + std::to_string(w.bytes.size()) +
                                    " bytes; the output holds " + std::to_string(out.size()));
    }
    const std::byte* data = w.bytes.data();
    switch (w.dtype) {
        case WeightDType::f32:
            if (count > 0) std::memcpy(out.data(), data, count * sizeof(float));
            return;
        case WeightDType::f16:
        case WeightDType::bf16: {
            const bool half = w.dtype == WeightDType::f16;
            for (std::size_t i = 0; i < out.size(); ++i) {
                uint16_t bits = 0;
                std::memcpy(&bits, data + 2 * i, sizeof(bits));
                out[i] = half ? base::f16_to_f32(bits) : base::bf16_to_f32(bits);
            }
            return;
        }
        case WeightDType::ggml_blocks:
            dequantize_ggml_blocks(w.blocks, w.bytes, out);
            return;
    }
}

}  // namespace earshot::checkpoint
