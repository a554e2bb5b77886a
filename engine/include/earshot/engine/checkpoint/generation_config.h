// GenerationConfig: what decoding takes from a Hugging Face checkpoint's generation_config.json.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace earshot::checkpoint {

struct GenerationConfig {
    std::filesystem::path file;  // the generation_config.json read; empty when there is none
    // The checkpoint's own suppress list: when present it replaces the "-1" default (the
    // non-speech set), as Hugging Face's generate() uses it. A model trained on part of the
    // vocabulary lists the ids it never learned here.
    std::optional<std::vector<int32_t>> suppress_tokens;
    // Whether long-form transcription passes the previous windows' text as the prompt (openai's
    // condition_on_previous_text), under Hugging Face's name for it, condition_on_prev_tokens. A
    // model whose training prompts were unrelated text can set it to false.
    std::optional<bool> condition_on_prev_tokens;
    // The decoder heads whose cross-attention follows the speech ([layer, head] pairs), for
    // word-level timestamps; absent: the caller's default.
    std::optional<std::vector<std::array<int64_t, 2>>> alignment_heads;
};

// Reads the generation_config.json that belongs to the checkpoint at `path`: inside a directory,
// or beside a .safetensors file or a config.json. A ggml file, or a checkpoint without the file,
// gives an empty config. Only suppress_tokens, condition_on_prev_tokens and alignment_heads are
// taken (null counts as absent); every id must be in [0, n_vocab). Throws CheckpointError naming
// the file and the problem.
GenerationConfig read_generation_config(const std::filesystem::path& path, int64_t n_vocab);

}  // namespace earshot::checkpoint
