// Writing .safetensors files: the JSON header padded with spaces to a multiple of 8, then the
// tensors packed with no gaps in name order (what the reference writer produces).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/safetensors.h"

namespace earshot::checkpoint {

struct TensorToWrite {
    std::string name;
    SafetensorsDType dtype = SafetensorsDType::f32;
    std::vector<int64_t> shape;    // PyTorch order; [] = scalar
    std::vector<std::byte> bytes;  // little-endian, row-major: element count x dtype size bytes
};

// Writes `tensors` (any order; written sorted by name) and `metadata` ("__metadata__", left out
// when empty) to `path`, replacing it. Throws std::invalid_argument on a duplicate name, a negative
// dimension or a byte count that disagrees with shape and dtype; std::runtime_error naming the file
// when it cannot be written.
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace earshot::checkpoint
