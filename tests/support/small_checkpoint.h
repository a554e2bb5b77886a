// The small random checkpoint that the front ends' and the live pipeline's tests transcribe with:
// D 64, 4 heads, 2 + 2 layers and the multilingual vocabulary's size (jfk.wav in about a second).
#pragma once

#include "earshot/engine/model/random_checkpoint.h"

namespace earshot::test {

// The small shape; every other option keeps RandomCheckpointOptions' default (Whisper's 80 mels,
// 3000 frames, 448 tokens, f16, seed 1). Tests that need more change the fields they name.
inline model::RandomCheckpointOptions small_checkpoint_options() {
    model::RandomCheckpointOptions options;
    options.d = 64;
    options.heads = 4;
    options.enc_layers = 2;
    options.dec_layers = 2;
    return options;
}

}  // namespace earshot::test
