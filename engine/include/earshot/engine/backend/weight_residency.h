// WeightResidency: which of a model's weights a backend keeps resident between the calls of a
// file transcription, where each window is encoded once and then decoded at length.
#pragma once

namespace earshot::backend {

enum class WeightResidency {
    // Every weight stays resident: live dictation encodes on every update.
    all,
    // After each listen, the encoder's weights mapped from the model file leave this process's
    // resident memory while the window is decoded (they stay in the page cache, clean and
    // reclaimable, and fault back at the next listen). Weights copied at load are unaffected.
    encoder_dropped_while_decoding,
};

}  // namespace earshot::backend
