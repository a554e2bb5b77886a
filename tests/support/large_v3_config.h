// The configuration of openai whisper-large-v3 (its config.json's dims), for tests that bind or
// draw the program at a real model's size without its weights.
#pragma once

#include "earshot/engine/checkpoint/whisper_config.h"

namespace earshot::test {

inline checkpoint::WhisperConfig large_v3_config() {
    checkpoint::WhisperConfig c;
    c.source = "large-v3";
    c.n_mels = 128;
    c.n_audio_ctx = 1500;
    c.n_audio_state = c.n_text_state = 1280;
    c.n_audio_head = c.n_text_head = 20;
    c.n_audio_layer = c.n_text_layer = 32;
    c.n_audio_ffn = c.n_text_ffn = 5120;
    c.n_text_ctx = 448;
    c.n_vocab = 51866;
    c.weight_dtype = "f16";
    return c;
}

// The same dims as openai/whisper-large-v3's config.json text (the file has more fields, none
// read), for tests of what a folder holding only a config.json gives.
inline constexpr const char* kLargeV3ConfigJson = R"({
  "architectures": ["WhisperForConditionalGeneration"],
  "model_type": "whisper",
  "torch_dtype": "float16",
  "num_mel_bins": 128,
  "max_source_positions": 1500,
  "d_model": 1280,
  "encoder_attention_heads": 20,
  "encoder_layers": 32,
  "encoder_ffn_dim": 5120,
  "max_target_positions": 448,
  "decoder_attention_heads": 20,
  "decoder_layers": 32,
  "decoder_ffn_dim": 5120,
  "vocab_size": 51866
})";

}  // namespace earshot::test
