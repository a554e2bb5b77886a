// Attention for one query row per head (a decoder step: one row, or a beam's rows): each head's
// keys are cut into blocks of kKeyBlock positions, and every (row, head, block) is a task on the
// thread pool. A task leaves its block's part of the softmax (the max of its scores, the sum of
// e^(score - max), and the values weighed by those), and whichever task finishes a head's last
// block merges the head's parts. A step so has work for every thread of a many-core machine
// (tiny's cross-attention: 6 heads x 12 blocks), where one task per head left most of them idle.
// The blocks are fixed, so an output row's arithmetic does not depend on the number of threads.
#pragma once

#include <cstdint>

namespace earshot::backend::cpu {

inline constexpr int64_t kKeyBlock = 128;  // key positions per task (16 KiB of f16 keys at Dh 64)

// q [B, H, Dh]; k and v [G, K, Dh] with G = H when `kv_shared` (every batch row reads the same
// keys and values) else B * H; mask [K] (1 = visible) or null -> y [B, H, Dh] =
// softmax(q k^T * scale, masked) v per (b, h). A row that sees no key gets zeros; a block no row
// sees is not read.
void attention_one_query(const float* q, const float* k, const float* v, const uint8_t* mask,
                         float* y, int64_t batch, int64_t heads, int64_t k_len, int64_t dh,
                         float scale, bool kv_shared);

// The same with k and v as f16 bits (the f16 decoder caches), widened as they are read.
void attention_one_query_f16(const float* q, const uint16_t* k, const uint16_t* v,
                             const uint8_t* mask, float* y, int64_t batch, int64_t heads,
                             int64_t k_len, int64_t dh, float scale, bool kv_shared);

}  // namespace earshot::backend::cpu
