// read_generation_config: generation_config.json's suppress_tokens, checked against the vocabulary.
#include "earshot/engine/checkpoint/generation_config.h"

#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "earshot/engine/checkpoint/errors.h"
#include "json_file.h"

namespace earshot::checkpoint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The directory whose generation_config.json goes with `path`, or empty (ggml, unknown).
fs::path config_directory(const fs::path& path) {
    std::error_code error;
    if (fs::is_directory(path, error)) return path;
    if (path.extension() == ".safetensors" || path.filename() == "config.json") {
        return path.parent_path().empty() ? fs::path(".") : path.parent_path();
    }
    return {};
}

}  // namespace

GenerationConfig read_generation_config(const fs::path& path, int64_t n_vocab) {
    GenerationConfig config;
    const fs::path directory = config_directory(path);
    if (directory.empty()) return config;
    const fs::path file = directory / "generation_config.json";
    std::error_code error;
    if (!fs::is_regular_file(file, error)) return config;
    config.file = file;

    const json root = read_json_file(file);
    if (!root.is_object()) throw CheckpointError(file, "the top level is not an object");
    if (const auto flag = root.find("condition_on_prev_tokens");
        flag != root.end() && !flag->is_null()) {
        if (!flag->is_boolean()) {
            throw CheckpointError(file,
                                  "field \"condition_on_prev_tokens\" is not true or false (got " +
                                      flag->dump().substr(0, 40) + ")");
        }
        config.condition_on_prev_tokens = flag->get<bool>();
    }
    if (const auto heads = root.find("alignment_heads"); heads != root.end() && !heads->is_null()) {
        if (!heads->is_array()) {
            throw CheckpointError(file, "field \"alignment_heads\" is not a list (got " +
                                            heads->dump().substr(0, 40) + ")");
        }
        std::vector<std::array<int64_t, 2>> pairs;
        const auto& list = heads->get_ref<const json::array_t&>();
        for (size_t i = 0; i < list.size(); ++i) {
            const json& pair = list[i];
            std::array<int64_t, 2> numbers{-1, -1};
            if (pair.is_array() && pair.size() == 2) {
                const auto& two = pair.get_ref<const json::array_t&>();
                for (size_t k = 0; k < 2; ++k) {
                    if (two[k].is_number_integer()) numbers[k] = two[k].get<int64_t>();
                }
            }
            if (numbers[0] < 0 || numbers[1] < 0) {
                throw CheckpointError(file, "alignment_heads[" + std::to_string(i) +
                                                "] = " + pair.dump().substr(0, 40) +
                                                " is not a [layer, head] pair");
            }
            pairs.push_back(numbers);
        }
        config.alignment_heads = std::move(pairs);
    }
    const auto it = root.find("suppress_tokens");
    if (it == root.end() || it->is_null()) return config;
    if (!it->is_array()) {
        throw CheckpointError(
            file, "field \"suppress_tokens\" is not a list (got " + it->dump().substr(0, 40) + ")");
    }
    const auto& list = it->get_ref<const json::array_t&>();
    std::vector<int32_t> ids;
    ids.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
        const json& value = list[i];
        if (!value.is_number_integer() || value.get<int64_t>() < 0 ||
            value.get<int64_t>() >= n_vocab) {
            throw CheckpointError(file, "suppress_tokens[" + std::to_string(i) +
                                            "] = " + value.dump() + " is not a token id in [0, " +
                                            std::to_string(n_vocab) + ")");
        }
        ids.push_back(static_cast<int32_t>(value.get<int64_t>()));
    }
    config.suppress_tokens = std::move(ids);
    return config;
}

}  // namespace earshot::checkpoint
