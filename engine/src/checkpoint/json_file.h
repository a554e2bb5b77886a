// Reading a checkpoint's JSON side files (config.json, generation_config.json, the shard index).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

namespace earshot::checkpoint {

// The parsed file. Throws CheckpointError naming the file when it cannot be read or is not JSON.
nlohmann::json read_json_file(const std::filesystem::path& path);

}  // namespace earshot::checkpoint
