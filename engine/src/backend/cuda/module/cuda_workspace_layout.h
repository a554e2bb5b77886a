// Where a prepared plan's operands go in the CUDA model's workspace: the alignment of its parts,
// the attention operands' scratch layout, and which step inputs may read a cache (f16 on device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "earshot/engine/backend/plan.h"

namespace earshot::backend::cuda {

inline constexpr int64_t kAlignBytes = 256;

inline int64_t align_up(int64_t n) { return (n + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

inline int64_t count(const std::vector<int64_t>& shape, size_t begin = 0, size_t end = SIZE_MAX) {
    int64_t n = 1;
    for (size_t i = begin; i < shape.size() && i < end; ++i) n *= shape[i];
    return n;
}

// The decoder caches are f16 on the device (kCacheValueBytes, cuda_launch_rules.h); every value
// written to them is rounded once, to nearest even, as the f16 GEMM operands are.

// Where an op may read or write a cache: the state a write_span / write_at updates (input 0)
// and the keys and values of an attention (inputs 1, 2). Any other read would see f16 bits.
inline bool reads_cache_as_f16(program::OpKind kind, size_t input) {
    return ((kind == program::OpKind::write_span || kind == program::OpKind::write_at) &&
            input == 0) ||
           (kind == program::OpKind::attention && (input == 1 || input == 2));
}

// The attention operands in scratch: q, k, v as f16, scores f32, probabilities f16.
struct AttentionScratch {
    int64_t q16 = 0, k16 = 0, v16 = 0, scores = 0, probs = 0, total = 0;
};

// `fused`: the fused kernel keeps scores and probabilities on chip, so they take no room here.
inline AttentionScratch attention_scratch(int64_t bh, int64_t q_len, int64_t k_len, int64_t dh,
                                          bool fused) {
    AttentionScratch s;
    s.q16 = 0;
    s.k16 = s.q16 + align_up(bh * q_len * dh * 2);
    s.v16 = s.k16 + align_up(bh * k_len * dh * 2);
    s.scores = s.v16 + align_up(bh * k_len * dh * 2);
    s.probs = s.scores + (fused ? 0 : align_up(bh * q_len * k_len * 4));
    s.total = s.probs + (fused ? 0 : align_up(bh * q_len * k_len * 2));
    return s;
}

}  // namespace earshot::backend::cuda
