// Cross-attention weights a prefill returns when asked: the attention probabilities of chosen
// decoder heads over the audio positions, the numbers word alignment reads.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

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

// Throws std::out_of_range naming the first of `heads` that a decoder of `decoder_layers` layers
// of `heads_per_layer` heads does not have; every backend checks a request with it.
inline void require_decoder_heads(std::span<const AttentionHead> heads, int64_t decoder_layers,
                                  int64_t heads_per_layer) {
    for (const AttentionHead& head : heads) {
        if (head.layer < 0 || head.layer >= decoder_layers || head.head < 0 ||
            head.head >= heads_per_layer) {
            throw std::out_of_range("no decoder head " + std::to_string(head.head) + " in layer " +
                                    std::to_string(head.layer));
        }
    }
}

}  // namespace earshot::backend
