// Choosing heads out of cross-attention weights (live_cross_attention.h).
#include "earshot/engine/decoding/live_cross_attention.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace earshot::decoding {

backend::HostTensor select_heads(const backend::HostTensor& weights,
                                 const std::vector<size_t>& indices) {
    if (weights.shape().size() != 4) {
        throw std::invalid_argument("select_heads: weights must be [B, H, S, A], got " +
                                    weights.shape_str());
    }
    const int64_t batch = weights.dim(0);
    const auto heads = static_cast<size_t>(weights.dim(1));
    const int64_t per_head = weights.dim(2) * weights.dim(3);  // [S, A]
    for (const size_t h : indices) {
        if (h >= heads) {
            throw std::out_of_range("select_heads: no head " + std::to_string(h) + " in " +
                                    weights.shape_str());
        }
    }
    const auto kept = static_cast<int64_t>(indices.size());
    backend::HostTensor out =
        backend::HostTensor::f32({batch, kept, weights.dim(2), weights.dim(3)});
    const auto from = weights.f32_values();
    const auto to = out.f32_values();
    for (int64_t b = 0; b < batch; ++b) {
        for (int64_t k = 0; k < kept; ++k) {
            const int64_t source =
                (b * weights.dim(1) + static_cast<int64_t>(indices[static_cast<size_t>(k)])) *
                per_head;
            std::copy_n(from.begin() + source, per_head, to.begin() + (b * kept + k) * per_head);
        }
    }
    return out;
}

}  // namespace earshot::decoding
