// Tensor names in checkpoint files -> parameter paths of the Whisper program: Hugging Face names
// (`model.encoder.layers.3.fc1.weight`) and the openai names whisper.cpp's ggml files keep.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace earshot::checkpoint {

// The HF tied output head, which is not a program parameter (the head reuses token_embedding).
inline constexpr std::string_view hf_output_projection = "proj_out.weight";

// `model.encoder.conv1.weight` -> `conv1_weight`, `model.decoder.layers.1.fc2.bias` ->
// `decoder_layers.1.mlp.fc2.bias`; names without the `model.` prefix map the same. nullopt for a
// name that is not a Whisper parameter (proj_out.weight included).
std::optional<std::string> program_path_from_hf(std::string_view name);

// `encoder.blocks.3.attn.query.weight` -> `encoder_layers.3.self_attn.q_proj.weight`,
// `decoder.ln.bias` -> `decoder_norm.bias`; nullopt for an unknown name.
std::optional<std::string> program_path_from_openai(std::string_view name);

}  // namespace earshot::checkpoint
