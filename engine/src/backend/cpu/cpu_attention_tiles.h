// Many-query attention in register tiles on the thread pool: the encoder's self-attention (1500
// queries against 1500 keys per head) and a prompt's prefill. Each task takes one head's block of
// query rows and runs scores, softmax and the weighted sum of values for it with its scores kept
// in L2, instead of two OpenBLAS GEMMs per head whose inner size (the head size, 64) is too small
// for their packing to pay, run one head after another. Tasks are (head, query block) pairs, so
// every thread of the pool has work whatever the number of heads.
#pragma once

#include <cstdint>

namespace earshot::backend::cpu {

// Whether attention_tiles serves this head size on this CPU (AVX2 and FMA, checked at run time;
// head sizes that are a multiple of 16).
bool attention_tiles_supported(int64_t dh);

// q [B, H, Q, Dh]; k and v [G, K, Dh] with G = H when `kv_shared` (every batch row reads the same
// keys and values) else B * H; mask [Q, K] (1 = visible) or null -> y [B, H, Q, Dh] =
// softmax(q k^T * scale, masked) v per (b, h). A row that sees no key gets zeros. The arithmetic
// of one output row does not depend on the number of threads.
void attention_tiles(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
                     int64_t batch, int64_t heads, int64_t q_len, int64_t k_len, int64_t dh,
                     float scale, bool kv_shared);

}  // namespace earshot::backend::cpu
