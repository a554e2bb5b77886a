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

}  // namespace earshot::test
