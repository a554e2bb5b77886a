// Converting any checkpoint Earshot reads (HF safetensors, ggml f32 / f16 / quantized) into a
// whisper.cpp ggml file whose 2-D weights are quantized as whisper.cpp's quantizer does. Above
// checkpoint/ and tokenizer/: it reads weights and writes the vocabulary.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::convert {

using checkpoint::GgmlType;

// The file types `quantize_checkpoint_to_ggml` writes, by name: "f32", "f16", "q8_0", "q5_1",
// "q5_0", "q4_1", "q4_0"; nullopt for another name.
std::optional<GgmlType> ggml_file_type_from_name(std::string_view name);
std::string ggml_file_type_names();  // "q8_0, q5_1, q5_0, q4_1, q4_0, f16, f32"

struct GgmlQuantizeProgress {
    std::size_t tensor_index = 0;  // 0-based, of tensor_count
    std::size_t tensor_count = 0;
    std::string name;  // openai name
    GgmlType type = GgmlType::f32;
};

// The mel filter block of a HF checkpoint, which holds none: [mels][201] f32 (openai's
// mel_filters.npz rows); the caller builds it (the engine has no audio front end).
using MelFiltersFor = std::function<std::vector<float>(int mels)>;

// Writes the ggml container of the checkpoint at `input` to `out`: header ftype of `file_type`;
// a ggml input's mel filters and vocabulary copied, a HF input's filters from `mel_filters_for`
// and its base vocabulary (vocab.json / tokenizer.json beside it); every weight under its openai
// name in whisper_cpp_tensor_type's type (ggml_writer.h), quantized ones by quantize_ggml_blocks.
// `progress` is called before each tensor. Throws CheckpointError (reading the input, or a 2-D
// weight whose rows are not whole 32-value blocks) and the tokenizer's errors, among them, before
// any weight is read, a vocabulary that does not fit n_vocab as Earshot's tokenizer requires.
void quantize_checkpoint_to_ggml(const std::filesystem::path& input, GgmlType file_type,
                                 const MelFiltersFor& mel_filters_for, std::ostream& out,
                                 const std::function<void(const GgmlQuantizeProgress&)>& progress);

}  // namespace earshot::convert
