// WhisperConfig: the hyper-parameters and weight dtype of a Whisper checkpoint, read from a
// Hugging Face directory, a .safetensors file with its config.json, or a whisper.cpp ggml .bin.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace earshot::checkpoint {

enum class CheckpointFormat { hf_directory, safetensors_file, ggml_file };

std::string_view format_name(CheckpointFormat format);  // "hf_directory", ...

struct WhisperConfig {
    CheckpointFormat format = CheckpointFormat::hf_directory;
    std::filesystem::path source;  // what the user gave

    int64_t n_mels = 0;         // num_mel_bins
    int64_t n_audio_ctx = 0;    // max_source_positions (1500)
    int64_t n_audio_state = 0;  // d_model
    int64_t n_audio_head = 0;   // encoder_attention_heads
    int64_t n_audio_layer = 0;  // encoder_layers
    int64_t n_audio_ffn = 0;    // encoder_ffn_dim
    int64_t n_text_ctx = 0;     // max_target_positions (448)
    int64_t n_text_state = 0;   // d_model
    int64_t n_text_head = 0;    // decoder_attention_heads
    int64_t n_text_layer = 0;   // decoder_layers
    int64_t n_text_ffn = 0;     // decoder_ffn_dim
    int64_t n_vocab = 0;        // vocab_size

    std::string weight_dtype;  // "f32" | "f16" | "bf16"
    std::string dtype_source;  // where weight_dtype came from, for `earshot inspect`
};

// Reads the hyper-parameters of the checkpoint at `path`, which may be:
// - a directory holding config.json (Hugging Face layout); a path to that config.json is taken as
//   its directory;
// - a *.safetensors file with config.json beside it;
// - a whisper.cpp ggml file (recognised by its magic, whatever the extension).
//
// weight_dtype, in order of precedence (the first that applies wins):
// 1. Safetensors headers: what the weights really are, so they win over config.json. For a
//    directory: model.safetensors, else every shard named in model.safetensors.index.json's
//    weight_map; for a .safetensors path: that file. The floating tensors (F16, BF16, F32, ...)
//    are counted by element; the dtype holding the most elements wins (ties go to the wider
//    type). A majority dtype other than F32, F16 or BF16 is a CheckpointError. Headers with no
//    floating tensor fall through to 2.
// 2. config.json: "dtype" (newer transformers), else "torch_dtype": "float32", "float16" or
//    "bfloat16" (an optional "torch." prefix is accepted); null counts as absent, anything else is
//    a CheckpointError.
// 3. "f32", dtype_source "default (no dtype in checkpoint)".
// For ggml: ftype % 1000: 0 -> "f32", 1 -> "f16"; a quantized ggml_ftype (2 q4_0, 3 q4_1, 4,
// 7 q8_0, 8 q5_0, 9 q5_1, 10..14 q2_k..q6_k) -> "f16", since read_weights decodes quantized
// tensors to f16 (dtype_source says so); any other value is a CheckpointError.
// A directory with neither model.safetensors nor its index but a pytorch_model.bin (a pickle) is
// a CheckpointError saying why it is not read and how to get safetensors. The ggml container has no
// ffn sizes: they are read from encoder.blocks.0.mlp.0.weight / decoder.blocks.0.mlp.0.weight (ggml
// ne = [state, ffn]) when present, else 4 x state as whisper.cpp assumes.
//
// Values are read faithfully, not checked against each other (heads dividing the state etc.).
// Throws CheckpointError with one line naming the file and the field or problem: missing path,
// directory without config.json, malformed JSON, missing, non-integer or negative field, bad
// dtype, and every safetensors or ggml parse error.
WhisperConfig read_whisper_config(const std::filesystem::path& path);

}  // namespace earshot::checkpoint
