// The whisper.cpp legacy ggml container (.bin, magic "ggml", not GGUF): hyper-parameters, mel
// filter block, vocabulary and the tensor directory. Tensor data is located, not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::checkpoint {

// u32 at offset 0, little-endian; the bytes on disk read "lmgg" (whisper.cpp GGML_FILE_MAGIC).
inline constexpr uint32_t ggml_file_magic = 0x67676d6c;

// The 11 i32 hyper-parameters, in file order (whisper.cpp `whisper_model_load`).
struct GgmlHparams {
    int32_t n_vocab = 0;
    int32_t n_audio_ctx = 0;
    int32_t n_audio_state = 0;
    int32_t n_audio_head = 0;
    int32_t n_audio_layer = 0;
    int32_t n_text_ctx = 0;
    int32_t n_text_state = 0;
    int32_t n_text_head = 0;
    int32_t n_text_layer = 0;
    int32_t n_mels = 0;
    int32_t ftype = 0;  // quantization version * 1000 + ggml_ftype (0 all F32, 1 mostly F16, ...)
};

struct GgmlTensorInfo {
    std::string name;
    GgmlType ttype = GgmlType::f32;
    std::vector<int64_t> ne;         // ggml order: innermost (fastest) first = reversed PyTorch
    uint64_t data_offset_bytes = 0;  // absolute offset of the data in the file
    uint64_t size_bytes = 0;         // ggml_nbytes: elements x type size, or blocks x block size
};

struct GgmlFile {
    GgmlHparams hparams;
    int32_t mel_count = 0;                // mel bands in the filter block (n_mels)
    int32_t mel_bins = 0;                 // frequency bins per band (201 = n_fft / 2 + 1)
    std::vector<float> mel_filters;       // [mel_count, mel_bins], row-major
    std::vector<std::string> vocab;       // raw token bytes; the id is the position
    std::vector<GgmlTensorInfo> tensors;  // in file order; empty in whisper.cpp's test models
    uint64_t file_size_bytes = 0;
};

// Reads everything up to the tensor data and the directory of the tensors that follow, seeking
// over their data. Throws CheckpointError, naming the file and the problem, on a bad magic
// (including a GGUF file), truncation anywhere, a negative hyper-parameter or count, a block
// larger than what is left of the file, a tensor with n_dims outside 1..4, name_len outside
// 1..1024, a dimension < 1, a ggml type Earshot does not read (the message gives its id, ggml's
// name for it and the types read), a row (ne[0]) that is not a whole number of the type's blocks,
// data past the end of the file or a name seen twice. A quantized tensor's size is its blocks x
// block bytes (ggml_blocks.h), so its data is exactly what the layout needs.
GgmlFile read_ggml_file(const std::filesystem::path& path);

// The same parse and checks on a whole container already in memory (what a fuzzer passes);
// `name_for_errors` names it in messages. Tensor offsets are relative to the start of `bytes`.
GgmlFile parse_ggml_file(std::span<const std::byte> bytes, const std::string& name_for_errors);

// True when the file exists and starts with the ggml magic. Never throws.
bool is_ggml_file(const std::filesystem::path& path) noexcept;

}  // namespace earshot::checkpoint
