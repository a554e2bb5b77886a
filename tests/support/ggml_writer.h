// ggml containers for tests: the ggml twin of a loaded checkpoint with chosen tensors quantized by
// the project's reference quantizer (ggml_quantizer.h), written by the engine's ggml writer.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/ggml_writer.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "ggml_quantizer.h"

namespace earshot::test {

// The container writer, names, ftypes and hyper-parameters are the engine's (ggml_writer.h).
using checkpoint::ggml_file_bytes;
using checkpoint::ggml_ftype_of;
using checkpoint::ggml_hparams_of;
using checkpoint::GgmlContents;
using checkpoint::GgmlTensorToWrite;
using checkpoint::openai_name_of_hf;

inline void write_ggml_file(const std::filesystem::path& path, const GgmlContents& contents) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    checkpoint::write_ggml_file(out, contents);
}

// Every weight of `weights` as a ggml tensor under its openai name: f32, except where
// `type_for(openai name, ggml ne)` picks a quantized type, whose bytes come from quantize_ggml.
// The conv biases are written [D, 1] (ne = [1, D]) as whisper.cpp's converter does.
inline std::vector<GgmlTensorToWrite> ggml_tensors_of(
    const checkpoint::WeightSet& weights,
    const std::function<checkpoint::GgmlType(const std::string&, const std::vector<int64_t>&)>&
        type_for) {
    std::vector<GgmlTensorToWrite> tensors;
    for (const auto& w : weights.weights()) {
        GgmlTensorToWrite t;
        t.name = openai_name_of_hf(w.source_name);
        t.ne = checkpoint::ggml_ne_of(t.name, w.shape);
        std::vector<float> values(w.element_count());
        checkpoint::convert_to_f32(w, values);
        t.type = type_for(t.name, t.ne);
        if (checkpoint::is_quantized(t.type)) {
            t.data = quantize_ggml(t.type, values);
        } else {
            t.type = checkpoint::GgmlType::f32;
            const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
            t.data.assign(bytes, bytes + values.size() * sizeof(float));
        }
        tensors.push_back(std::move(t));
    }
    return tensors;
}

// The whisper.cpp file of a loaded checkpoint with its linear weights in `type`: as whisper.cpp's
// quantizer does, the 2-D weights (projections, MLP, token embedding) whose rows are whole blocks;
// positional embeddings, convolutions, norms and biases stay f32. `type` f32 gives the plain twin.
inline GgmlContents ggml_twin(const checkpoint::WeightSet& weights,
                              const checkpoint::WhisperConfig& config, checkpoint::GgmlType type) {
    const auto block = static_cast<int64_t>(checkpoint::ggml_block_layout(type).elements);
    GgmlContents contents;
    contents.hparams = ggml_hparams_of(config, ggml_ftype_of(type));
    contents.tensors =
        ggml_tensors_of(weights, [&](const std::string& name, const std::vector<int64_t>& ne) {
            const bool linear = ne.size() == 2 && name.ends_with(".weight") && ne[0] % block == 0;
            return linear ? type : checkpoint::GgmlType::f32;
        });
    return contents;
}

}  // namespace earshot::test
