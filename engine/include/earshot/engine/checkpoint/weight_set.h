// WeightSet: every tensor of a Whisper checkpoint, memory-mapped and named by its program
// parameter path (`encoder_layers.3.self_attn.q_proj.weight`), and their widening to f32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/mapped_file.h"
#include "earshot/engine/checkpoint/whisper_config.h"

namespace earshot::checkpoint {

// ggml_blocks: a quantized ggml type's blocks as the file stores them (Weight::blocks names the
// type), each row of the matrix a whole number of blocks.
enum class WeightDType { f32, f16, bf16, ggml_blocks };

std::string_view weight_dtype_name(WeightDType dtype);  // "f32", "f16", "bf16", "ggml blocks"
// 4, 2, 2; 0 for ggml_blocks, whose size is per block (Weight::stored_bytes).
std::size_t weight_dtype_size_bytes(WeightDType dtype);

struct Weight {
    // Program parameter path, e.g. "encoder_layers.3.self_attn.q_proj.weight"; empty for a tensor
    // whose name maps to no parameter (check_weights reports it as extra).
    std::string path;
    std::string
        source_name;  // name in the file, e.g. "model.encoder.layers.3.self_attn.q_proj.weight"
    std::filesystem::path file;
    WeightDType dtype = WeightDType::f32;
    std::vector<int64_t> shape;        // PyTorch order (outermost first); ggml order is reversed
    std::span<const std::byte> bytes;  // little-endian row-major; valid while the WeightSet lives
    GgmlType blocks = GgmlType::f32;   // the quantized type of a ggml_blocks weight

    uint64_t element_count() const;  // product of shape (1 for a scalar)
    // The bytes the dtype needs for the shape: elements x size, or blocks x block bytes.
    uint64_t stored_bytes() const;
};

// The weights of one checkpoint and the file mappings they point into. Movable; moving keeps
// every Weight::bytes valid (the mappings do not move).
class WeightSet {
public:
    WeightSet() = default;
    WeightSet(WeightSet&&) noexcept = default;
    WeightSet& operator=(WeightSet&&) noexcept = default;
    WeightSet(const WeightSet&) = delete;
    WeightSet& operator=(const WeightSet&) = delete;

    const Weight* find(std::string_view path) const;  // nullptr when absent
    // The ggml type ("q4_0", "q6_k") whose blocks the weight at `path` keeps; "" for a float
    // weight (or no weight).
    std::string_view quantized_as(std::string_view path) const;
    const std::vector<Weight>& weights() const { return weights_; }
    // The files the weights were mapped from (a weight in one lies inside its bytes(); one decoded
    // at load lies in none).
    const std::vector<MappedFile>& files() const { return files_; }
    // Once a backend has read the weights: unmaps the files, so that a model file truncated or
    // replaced later cannot fault this process (SIGBUS), and empties the bytes of every weight
    // that lay in them (their dtype and shape stay); bytes the set owns stay.
    void release_files();

    // Building (read_weights): a mapping to keep alive, bytes decoded at load to keep alive (the
    // span stays valid while the set lives, moves included), and a weight in either.
    const MappedFile& keep(MappedFile file);
    // `bytes` (size_bytes of them) kept alive; copies of the set share them.
    std::span<const std::byte> own(std::shared_ptr<const std::byte[]> bytes,
                                   std::size_t size_bytes);
    // Throws CheckpointError when another tensor already took the same (non-empty) path.
    void add(Weight weight);

private:
    std::vector<MappedFile> files_;
    std::vector<std::shared_ptr<const std::byte[]>> owned_;
    std::vector<Weight> weights_;
    std::map<std::string, std::size_t, std::less<>> by_path_;
};

// Maps every weight file of the checkpoint `config` was read from and names its tensors by program
// path:
// - HF directory: model.safetensors, else every shard of model.safetensors.index.json (each
//   weight_map entry must be in the shard it names); a .safetensors path: that file. HF names
//   with or without the `model.` prefix. `proj_out.weight` is dropped when it holds the same
//   bytes as the token embedding (tied) and refused otherwise.
// - ggml: the openai names; shapes reversed to PyTorch order, conv biases [D, 1] squeezed to [D].
//   Quantized tensors (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k .. q6_k) stay in their blocks, in the
//   file's mapping (dtype ggml_blocks, quantized_as() names the type); every row must be whole
//   blocks. The CPU backend computes on the blocks; convert_to_f32 decodes them.
// - HF directory with only pytorch_model.bin (a pickle): refused, saying why and how to get a
//   safetensors copy (hf_weight_files.h).
// Throws CheckpointError naming the file and tensor: a dtype other than F32/F16/BF16 (safetensors)
// or a ggml type Earshot does not read, two tensors for one parameter, a tensor named twice across
// shards, an untied output projection, and every header parse error (truncation). A ggml
// container without tensors gives an empty WeightSet.
WeightSet read_weights(const WhisperConfig& config);

// Widens `w` to f32 exactly (IEEE half with subnormals, infinities and NaN; bfloat16 by shifting;
// ggml blocks decoded as dequantize_ggml_blocks does). `out` must hold exactly w.element_count()
// values (std::invalid_argument otherwise).
void convert_to_f32(const Weight& w, std::span<float> out);

}  // namespace earshot::checkpoint
