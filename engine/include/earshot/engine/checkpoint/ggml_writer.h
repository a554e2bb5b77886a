// Writing whisper.cpp ggml containers (the layout ggml_file.h reads): hyper-parameters, mel
// filters, vocabulary and tensors, and the choices whisper.cpp makes for a checkpoint's tensors:
// their openai names, ggml shapes and which of them a quantized file stores quantized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/checkpoint/whisper_config.h"

namespace earshot::checkpoint {

struct GgmlTensorToWrite {
    std::string name;  // openai name, e.g. "decoder.blocks.0.attn.query.weight"
    GgmlType type = GgmlType::f32;
    std::vector<int64_t> ne;      // ggml order: innermost first
    std::vector<std::byte> data;  // exactly the type's bytes for ne
};

struct GgmlContents {
    GgmlHparams hparams;
    int32_t mel_count = 0;
    int32_t mel_bins = 0;
    std::vector<float> mel_filters;  // [mel_count, mel_bins]
    std::vector<std::string> vocab;  // raw token bytes; the id is the position
    std::vector<GgmlTensorToWrite> tensors;
};

// Magic, hyper-parameters, mel filter block and vocabulary (everything before the tensors).
void write_ggml_preamble(std::ostream& out, const GgmlContents& contents);
// One tensor record: n_dims, name_len, ttype, ne..., name, data (no padding).
void write_ggml_tensor(std::ostream& out, const GgmlTensorToWrite& tensor);
// The whole container: preamble, then every tensor of `contents` in order.
void write_ggml_file(std::ostream& out, const GgmlContents& contents);
std::vector<char> ggml_file_bytes(const GgmlContents& contents);

// The openai (whisper.cpp) name of a Hugging Face Whisper tensor name (reference §6b); an openai
// name is returned unchanged.
std::string openai_name_of_hf(std::string name);

// whisper.cpp's header ftype for a file mostly of `type`: GGML_QNT_VERSION (2) * 1000 + ggml.h's
// enum ggml_ftype (0 f32, 1 f16, 2 q4_0, 3 q4_1, 7 q8_0, 8 q5_0, 9 q5_1, 10..14 q2_k..q6_k).
int32_t ggml_ftype_of(GgmlType type);

// The hyper-parameters of a checkpoint's config in ggml form.
GgmlHparams ggml_hparams_of(const WhisperConfig& config, int32_t ftype);

// The ggml shape of a weight: its PyTorch shape reversed; the conv biases [D] as [D, 1] (ne =
// [1, D]), as whisper.cpp's converter writes them.
std::vector<int64_t> ggml_ne_of(const std::string& openai_name, const std::vector<int64_t>& shape);

// The type whisper.cpp stores tensor `openai_name` (ggml shape `ne`) in, in a file of `file_type`:
// - f32 files: everything f32;
// - otherwise the 2-D weights (projections, MLP, token embedding) in `file_type`; the conv weights
//   f16; 1-D tensors (norms, biases), the conv biases and both positional embeddings f32.
GgmlType whisper_cpp_tensor_type(const std::string& openai_name, const std::vector<int64_t>& ne,
                                 GgmlType file_type);

}  // namespace earshot::checkpoint
