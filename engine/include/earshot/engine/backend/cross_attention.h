// Cross-attention weights a prefill returns when asked: the attention probabilities of chosen
// decoder heads over the audio positions, the numbers word alignment reads.
#pragma once

#include <cstdint>
#include <span>

#include "earshot/engine/backend/host_tensor.h"

namespace earshot::backend {

// One decoder head: `layer` in [0, DecoderLayers), `head` in [0, Heads).
struct AttentionHead {
    int64_t layer = 0;
    int64_t head = 0;
    bool operator==(const AttentionHead&) const = default;
};

// What a prefill fills in when asked: for every head in `heads`, the cross-attention of every
// token row and position, softmax(q k^T / sqrt(D / Heads)) over the audio positions, the very
// probabilities the attention op weighs the values with. weights [Batch, heads.size(), S, Audio].
struct CrossAttentionRequest {
    std::span<const AttentionHead> heads;
    HostTensor weights;
};

}  // namespace earshot::backend
