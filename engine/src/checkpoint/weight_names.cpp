// The two naming schemes of Whisper checkpoints (reference §6a HF names, §6b openai names) mapped
// onto the program's parameter paths, by table: a fixed top level and a per-layer part.
#include "weight_names.h"

#include <array>
#include <span>
#include <utility>

namespace earshot::checkpoint {
namespace {

using NamePair = std::pair<std::string_view, std::string_view>;  // file prefix -> program prefix

// Names outside the layers whose last part is `.weight` / `.bias` (LayerNorms, convs).
constexpr std::array<NamePair, 4> hf_top_modules = {{
    {"encoder.conv1", "conv1"},
    {"encoder.conv2", "conv2"},
    {"encoder.layer_norm", "encoder_norm"},
    {"decoder.layer_norm", "decoder_norm"},
}};
constexpr std::array<NamePair, 3> hf_top_tensors = {{
    {"encoder.embed_positions.weight", "encoder_positions"},
    {"decoder.embed_tokens.weight", "token_embedding"},
    {"decoder.embed_positions.weight", "decoder_positions"},
}};
// Modules of one layer, without the `.weight` / `.bias` leaf.
constexpr std::array<NamePair, 8> hf_layer_modules = {{
    {"self_attn.q_proj", "self_attn.q_proj"},
    {"self_attn.k_proj", "self_attn.k_proj"},
    {"self_attn.v_proj", "self_attn.v_proj"},
    {"self_attn.out_proj", "self_attn.out_proj"},
    {"self_attn_layer_norm", "self_attn_layer_norm"},
    {"final_layer_norm", "final_layer_norm"},
    {"fc1", "mlp.fc1"},
    {"fc2", "mlp.fc2"},
}};
constexpr std::array<NamePair, 5> hf_decoder_layer_modules = {{
    {"encoder_attn.q_proj", "encoder_attn.q_proj"},
    {"encoder_attn.k_proj", "encoder_attn.k_proj"},
    {"encoder_attn.v_proj", "encoder_attn.v_proj"},
    {"encoder_attn.out_proj", "encoder_attn.out_proj"},
    {"encoder_attn_layer_norm", "encoder_attn_layer_norm"},
}};

constexpr std::array<NamePair, 4> openai_top_modules = {{
    {"encoder.conv1", "conv1"},
    {"encoder.conv2", "conv2"},
    {"encoder.ln_post", "encoder_norm"},
    {"decoder.ln", "decoder_norm"},
}};
constexpr std::array<NamePair, 3> openai_top_tensors = {{
    {"encoder.positional_embedding", "encoder_positions"},
    {"decoder.token_embedding.weight", "token_embedding"},
    {"decoder.positional_embedding", "decoder_positions"},
}};
constexpr std::array<NamePair, 8> openai_layer_modules = {{
    {"attn.query", "self_attn.q_proj"},
    {"attn.key", "self_attn.k_proj"},
    {"attn.value", "self_attn.v_proj"},
    {"attn.out", "self_attn.out_proj"},
    {"attn_ln", "self_attn_layer_norm"},
    {"mlp_ln", "final_layer_norm"},
    {"mlp.0", "mlp.fc1"},
    {"mlp.2", "mlp.fc2"},
}};
constexpr std::array<NamePair, 5> openai_decoder_layer_modules = {{
    {"cross_attn.query", "encoder_attn.q_proj"},
    {"cross_attn.key", "encoder_attn.k_proj"},
    {"cross_attn.value", "encoder_attn.v_proj"},
    {"cross_attn.out", "encoder_attn.out_proj"},
    {"cross_attn_ln", "encoder_attn_layer_norm"},
}};

struct Scheme {
    std::span<const NamePair> top_modules;
    std::span<const NamePair> top_tensors;
    std::string_view layers_word;  // "layers" (HF) or "blocks" (openai)
    std::span<const NamePair> layer_modules;
    std::span<const NamePair> decoder_layer_modules;
};

bool consume(std::string_view& text, std::string_view prefix) {
    if (text.substr(0, prefix.size()) != prefix) return false;
    text.remove_prefix(prefix.size());
    return true;
}

// `.weight` or `.bias` and nothing else, without the dot; empty when `rest` is neither.
std::string_view leaf_of(std::string_view rest) {
    if (rest == ".weight") return "weight";
    if (rest == ".bias") return "bias";
    return {};
}

// A layer index: decimal digits without a leading zero (except "0" itself).
std::optional<std::string_view> consume_index(std::string_view& text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || (digits > 1 && text[0] == '0') || digits > 9) return std::nullopt;
    std::string_view index = text.substr(0, digits);
    text.remove_prefix(digits);
    return index;
}

std::optional<std::string> map_module(std::string_view rest, std::span<const NamePair> modules,
                                      const std::string& program_prefix) {
    for (const auto& [file_module, program_module] : modules) {
        std::string_view tail = rest;
        if (!consume(tail, file_module)) continue;
        const std::string_view leaf = leaf_of(tail);
        if (!leaf.empty()) {
            return program_prefix + std::string(program_module) + "." + std::string(leaf);
        }
    }
    return std::nullopt;
}

std::optional<std::string> map_name(std::string_view name, const Scheme& scheme) {
    for (const auto& [file_name, program_name] : scheme.top_tensors) {
        if (name == file_name) return std::string(program_name);
    }
    for (const auto& [file_module, program_module] : scheme.top_modules) {
        std::string_view tail = name;
        if (!consume(tail, file_module)) continue;
        const std::string_view leaf = leaf_of(tail);
        if (leaf.empty()) continue;
        // conv1.weight -> conv1_weight (params of the root); encoder_norm.weight (a LayerNorm).
        const char separator = program_module.starts_with("conv") ? '_' : '.';
        return std::string(program_module) + separator + std::string(leaf);
    }
    for (const bool decoder : {false, true}) {
        std::string_view tail = name;
        const std::string side = decoder ? "decoder" : "encoder";
        if (!consume(tail, side + "." + std::string(scheme.layers_word) + ".")) continue;
        const auto index = consume_index(tail);
        if (!index || !consume(tail, ".")) return std::nullopt;
        const std::string prefix = side + "_layers." + std::string(*index) + ".";
        if (auto path = map_module(tail, scheme.layer_modules, prefix)) return path;
        if (decoder) return map_module(tail, scheme.decoder_layer_modules, prefix);
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> program_path_from_hf(std::string_view name) {
    static const Scheme scheme{hf_top_modules, hf_top_tensors, "layers", hf_layer_modules,
                               hf_decoder_layer_modules};
    consume(name, "model.");
    return map_name(name, scheme);
}

std::optional<std::string> program_path_from_openai(std::string_view name) {
    static const Scheme scheme{openai_top_modules, openai_top_tensors, "blocks",
                               openai_layer_modules, openai_decoder_layer_modules};
    return map_name(name, scheme);
}

}  // namespace earshot::checkpoint
