// The ggml container writer and whisper.cpp's naming, shaping and typing of a checkpoint's tensors
// (reference §6b: converter and loader).
#include "earshot/engine/checkpoint/ggml_writer.h"

#include <array>
#include <bit>
#include <map>
#include <sstream>
#include <utility>

namespace earshot::checkpoint {
namespace {

void put_u32(std::ostream& out, uint32_t v) {
    std::array<char, 4> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<char>((v >> (8 * i)) & 0xffU);
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void put_i32(std::ostream& out, int64_t v) {
    put_u32(out, std::bit_cast<uint32_t>(static_cast<int32_t>(v)));
}

bool is_conv_bias(const std::string& name) {
    return name == "encoder.conv1.bias" || name == "encoder.conv2.bias";
}

bool is_positional_embedding(const std::string& name) {
    return name == "encoder.positional_embedding" || name == "decoder.positional_embedding";
}

}  // namespace

void write_ggml_preamble(std::ostream& out, const GgmlContents& c) {
    put_u32(out, ggml_file_magic);
    const GgmlHparams& hp = c.hparams;
    for (const int32_t v :
         {hp.n_vocab, hp.n_audio_ctx, hp.n_audio_state, hp.n_audio_head, hp.n_audio_layer,
          hp.n_text_ctx, hp.n_text_state, hp.n_text_head, hp.n_text_layer, hp.n_mels, hp.ftype}) {
        put_i32(out, v);
    }
    put_i32(out, c.mel_count);
    put_i32(out, c.mel_bins);
    for (const float v : c.mel_filters) put_u32(out, std::bit_cast<uint32_t>(v));
    put_i32(out, static_cast<int64_t>(c.vocab.size()));
    for (const auto& token : c.vocab) {
        put_i32(out, static_cast<int64_t>(token.size()));
        out.write(token.data(), static_cast<std::streamsize>(token.size()));
    }
}

void write_ggml_tensor(std::ostream& out, const GgmlTensorToWrite& t) {
    put_i32(out, static_cast<int64_t>(t.ne.size()));
    put_i32(out, static_cast<int64_t>(t.name.size()));
    put_i32(out, static_cast<int32_t>(t.type));
    for (const int64_t n : t.ne) put_i32(out, n);
    out.write(t.name.data(), static_cast<std::streamsize>(t.name.size()));
    out.write(reinterpret_cast<const char*>(t.data.data()),
              static_cast<std::streamsize>(t.data.size()));
}

void write_ggml_file(std::ostream& out, const GgmlContents& contents) {
    write_ggml_preamble(out, contents);
    for (const auto& t : contents.tensors) write_ggml_tensor(out, t);
}

std::vector<char> ggml_file_bytes(const GgmlContents& contents) {
    std::ostringstream out(std::ios::binary);
    write_ggml_file(out, contents);
    const std::string bytes = std::move(out).str();
    return {bytes.begin(), bytes.end()};
}

std::string openai_name_of_hf(std::string name) {
    if (name.starts_with("model.")) name = name.substr(6);
    static const std::map<std::string, std::string> whole = {
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
    static const std::array<std::pair<std::string_view, std::string_view>, 12> parts = {{
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
        {".fc2.", ".mlp.2."},
    }};
    for (const auto& [from, to] : parts) replace(std::string(from), std::string(to));
    return name;
}

int32_t ggml_ftype_of(GgmlType type) {
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

GgmlHparams ggml_hparams_of(const WhisperConfig& c, int32_t ftype) {
    GgmlHparams hp;
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

std::vector<int64_t> ggml_ne_of(const std::string& openai_name, const std::vector<int64_t>& shape) {
    std::vector<int64_t> ne;
    if (is_conv_bias(openai_name) && shape.size() == 1) ne.push_back(1);
    ne.insert(ne.end(), shape.rbegin(), shape.rend());
    return ne;
}

GgmlType whisper_cpp_tensor_type(const std::string& openai_name, const std::vector<int64_t>& ne,
                                 GgmlType file_type) {
    if (file_type == GgmlType::f32) return GgmlType::f32;
    if (is_conv_bias(openai_name) || is_positional_embedding(openai_name)) return GgmlType::f32;
    if (ne.size() == 2) return file_type;
    if (ne.size() >= 3) return GgmlType::f16;  // the conv weights
    return GgmlType::f32;
}

}  // namespace earshot::checkpoint
