// Helpers for tests that build checkpoint files: copying the tensors of a loaded WeightSet into
// writable form, writing an HF directory from tensors, and raw file reads and writes.
#pragma once

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/safetensors_writer.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "file_bytes.h"

namespace earshot::test {

inline checkpoint::SafetensorsDType safetensors_dtype(checkpoint::WeightDType dtype) {
    switch (dtype) {
        case checkpoint::WeightDType::f16:
            return checkpoint::SafetensorsDType::f16;
        case checkpoint::WeightDType::bf16:
            return checkpoint::SafetensorsDType::bf16;
        case checkpoint::WeightDType::f32:
        case checkpoint::WeightDType::ggml_blocks:  // copied decoded (copy_tensors)
            break;
    }
    return checkpoint::SafetensorsDType::f32;
}

// Every tensor of `weights` under its file name, with a copy of its bytes (ggml blocks decoded to
// f32: safetensors has no block types).
inline std::vector<checkpoint::TensorToWrite> copy_tensors(const checkpoint::WeightSet& weights) {
    std::vector<checkpoint::TensorToWrite> tensors;
    for (const auto& w : weights.weights()) {
        if (w.dtype == checkpoint::WeightDType::ggml_blocks) {
            std::vector<float> values(w.element_count());
            checkpoint::convert_to_f32(w, values);
            std::vector<std::byte> bytes(values.size() * sizeof(float));
            std::memcpy(bytes.data(), values.data(), bytes.size());
            tensors.push_back(
                {w.source_name, checkpoint::SafetensorsDType::f32, w.shape, std::move(bytes)});
            continue;
        }
        tensors.push_back({w.source_name, safetensors_dtype(w.dtype), w.shape,
                           std::vector<std::byte>(w.bytes.begin(), w.bytes.end())});
    }
    return tensors;
}

inline std::vector<char> read_file_bytes(const std::filesystem::path& path) {
    const std::vector<unsigned char> bytes = read_file_bytes(path, "checkpoint file");
    return {bytes.begin(), bytes.end()};
}

inline void write_file_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// `dir` (created) with a copy of `config_json` and a model.safetensors holding `tensors`.
inline std::filesystem::path write_hf_checkpoint(
    const std::filesystem::path& dir, const std::filesystem::path& config_json,
    const std::vector<checkpoint::TensorToWrite>& tensors) {
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(config_json, dir / "config.json",
                               std::filesystem::copy_options::overwrite_existing);
    checkpoint::write_safetensors(dir / "model.safetensors", tensors);
    return dir;
}

}  // namespace earshot::test
