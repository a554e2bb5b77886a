// A writer of whisper.cpp ggml containers for tests: hyper-parameters, mel filters, vocabulary and
// tensors of any type Earshot reads, and the ggml twin of a loaded checkpoint with chosen tensors
// quantized by the project's reference quantizer (ggml_quantizer.h).
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
#include "earshot/engine/checkpoint/weight_set.h"
#include "ggml_quantizer.h"

namespace earshot::test {

struct GgmlTensorToWrite {
    std::string name;  // openai name, e.g. "decoder.blocks.0.attn.query.weight"
    checkpoint::GgmlType type = checkpoint::GgmlType::f32;
    std::vector<int64_t> ne;      // ggml order: innermost first
    std::vector<std::byte> data;  // exactly the type's bytes for ne
};

struct GgmlContents {
    checkpoint::GgmlHparams hparams;
    int32_t mel_count = 0;
    int32_t mel_bins = 0;
    std::vector<float> mel_filters;  // [mel_count, mel_bins]
    std::vector<std::string> vocab;
    std::vector<GgmlTensorToWrite> tensors;
};

inline std::vector<char> ggml_file_bytes(const GgmlContents& c) {
    std::vector<char> out;
    const auto u32 = [&](uint32_t v) {
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    };
    const auto i32 = [&](int64_t v) { u32(std::bit_cast<uint32_t>(static_cast<int32_t>(v))); };
    u32(checkpoint::ggml_file_magic);
    const checkpoint::GgmlHparams& hp = c.hparams;
    for (const int32_t v :
         {hp.n_vocab, hp.n_audio_ctx, hp.n_audio_state, hp.n_audio_head, hp.n_audio_layer,
          hp.n_text_ctx, hp.n_text_state, hp.n_text_head, hp.n_text_layer, hp.n_mels, hp.ftype}) {
        i32(v);
    }
    i32(c.mel_count);
    i32(c.mel_bins);
    for (const float v : c.mel_filters) u32(std::bit_cast<uint32_t>(v));
    i32(static_cast<int64_t>(c.vocab.size()));
    for (const auto& token : c.vocab) {
        i32(static_cast<int64_t>(token.size()));
        out.insert(out.end(), token.begin(), token.end());
    }
    for (const auto& t : c.tensors) {
        i32(static_cast<int64_t>(t.ne.size()));
        i32(static_cast<int64_t>(t.name.size()));
        i32(static_cast<int32_t>(t.type));
        for (const int64_t n : t.ne) i32(n);
        out.insert(out.end(), t.name.begin(), t.name.end());
        const auto* data = reinterpret_cast<const char*>(t.data.data());
        out.insert(out.end(), data, data + t.data.size());
    }
    return out;
}

inline void write_ggml_file(const std::filesystem::path& path, const GgmlContents& contents) {
    const std::vector<char> bytes = ggml_file_bytes(contents);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The openai (whisper.cpp) name of a Hugging Face Whisper tensor name (reference §6b).
inline std::string openai_name_of_hf(std::string name) {
    if (name.starts_with("model.")) name = name.substr(6);
    const std::map<std::string, std::string> whole = {
        {"encoder.embed_positions.weight", "encoder.positional_embedding"},
        {"decoder.embed_positions.weight", "decoder.positional_embedding"},
        {"decoder.embed_tokens.weight", "decoder.token_embedding.weight"}};
    if (const auto found = whole.find(name); found != whole.end()) return found->second;
    const auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = name.find(from);
        if (at != std::string::npos) name.replace(at, from.size(), to);
    };
    if (name.starts_with("encoder.layer_norm.")) replace("layer_norm", "ln_post");
    if (name.starts_with("decoder.layer_norm.")) replace("layer_norm", "ln");
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {".layers.", ".blocks."},
             {".self_attn_layer_norm.", ".attn_ln."},
             {".encoder_attn_layer_norm.", ".cross_attn_ln."},
             {".final_layer_norm.", ".mlp_ln."},
             {".self_attn.", ".attn."},
             {".encoder_attn.", ".cross_attn."},
             {".q_proj.", ".query."},
             {".k_proj.", ".key."},
             {".v_proj.", ".value."},
             {".out_proj.", ".out."},
             {".fc1.", ".mlp.0."},
             {".fc2.", ".mlp.2."}}) {
        replace(from, to);
    }
    return name;
}

// whisper.cpp's header ftype for a file mostly of `type`: GGML_QNT_VERSION (2) * 1000 + ggml.h's
// enum ggml_ftype (0 f32, 1 f16, 2 q4_0, 3 q4_1, 7 q8_0, 8 q5_0, 9 q5_1, 10..14 q2_k..q6_k).
inline int32_t ggml_ftype_of(checkpoint::GgmlType type) {
    using checkpoint::GgmlType;
    switch (type) {
        case GgmlType::f32:
            return 0;
        case GgmlType::f16:
            return 1;
        case GgmlType::q4_0:
            return 2002;
        case GgmlType::q4_1:
            return 2003;
        case GgmlType::q8_0:
            return 2007;
        case GgmlType::q5_0:
            return 2008;
        case GgmlType::q5_1:
            return 2009;
        case GgmlType::q2_k:
            return 2010;
        case GgmlType::q3_k:
            return 2011;
        case GgmlType::q4_k:
            return 2012;
        case GgmlType::q5_k:
            return 2013;
        case GgmlType::q6_k:
            return 2014;
    }
    return 0;
}

// The hyper-parameters of a checkpoint's config in ggml form.
inline checkpoint::GgmlHparams ggml_hparams_of(const checkpoint::WhisperConfig& c, int32_t ftype) {
    checkpoint::GgmlHparams hp;
    hp.n_vocab = static_cast<int32_t>(c.n_vocab);
    hp.n_audio_ctx = static_cast<int32_t>(c.n_audio_ctx);
    hp.n_audio_state = static_cast<int32_t>(c.n_audio_state);
    hp.n_audio_head = static_cast<int32_t>(c.n_audio_head);
    hp.n_audio_layer = static_cast<int32_t>(c.n_audio_layer);
    hp.n_text_ctx = static_cast<int32_t>(c.n_text_ctx);
    hp.n_text_state = static_cast<int32_t>(c.n_text_state);
    hp.n_text_head = static_cast<int32_t>(c.n_text_head);
    hp.n_text_layer = static_cast<int32_t>(c.n_text_layer);
    hp.n_mels = static_cast<int32_t>(c.n_mels);
    hp.ftype = ftype;
    return hp;
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
        if (t.name == "encoder.conv1.bias" || t.name == "encoder.conv2.bias") t.ne.push_back(1);
        t.ne.insert(t.ne.end(), w.shape.rbegin(), w.shape.rend());
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
