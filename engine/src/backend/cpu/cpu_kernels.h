// The CPU backend's kernels: plain f32 loops and OpenBLAS GEMMs, one function per named op.
// Shapes come checked from the plan; these functions only compute.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::backend::cpu {

// y [M, N] = x [M, K] * w^T (w [N, K]) (+ bias [N] when not null).
void linear(const float* x, const float* w, const float* bias, float* y, int64_t m, int64_t k,
            int64_t n);

// Channels-last conv: x [B, L, Cin], w [Cout, Cin, K], b [Cout] -> y [B, Lout, Cout], zero
// padding; `scratch` holds the im2col matrix [Lout, Cin * K].
void conv1d(const float* x, const float* w, const float* b, float* y, int64_t batch, int64_t length,
            int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t stride,
            int64_t padding, std::vector<float>& scratch);

void gelu_erf(const float* x, float* y, int64_t n);

// y [n] = a [n] + b [n % nb] (b broadcast over the leading dims).
void add(const float* a, const float* b, float* y, int64_t n, int64_t nb);

// Rows of width d: (x - mean) / sqrt(var + eps) * w + b, statistics in double.
void layer_norm(const float* x, const float* w, const float* b, float* y, int64_t rows, int64_t d,
                double eps);
void rms_norm(const float* x, const float* w, float* y, int64_t rows, int64_t d, double eps);

// General permutation of a tensor of rank <= 6.
void permute(const float* x, float* y, std::span<const int64_t> shape,
             std::span<const int64_t> axes);

// [B, N, H * Dh] -> [B, H, N, Dh] and back.
void split_heads(const float* x, float* y, int64_t batch, int64_t n, int64_t heads, int64_t dh);
void merge_heads(const float* x, float* y, int64_t batch, int64_t heads, int64_t n, int64_t dh);

// Rows [rows, cols] of scores in place -> their softmax; mask [rows, cols] (1 = visible) or null.
// A masked score gets exactly zero weight; a row that sees nothing becomes zeros.
void softmax_rows(float* scores, const uint8_t* mask, int64_t rows, int64_t cols);

// The part of one row's softmax a block of its keys gives: `max` over the block's visible scores
// (-inf when none is) and `sum` of e^(score - max) over them.
struct SoftmaxPartial {
    float max;
    float sum;
};
// One row's scores [cols] in place -> e^(score - max), exactly zero where mask [cols] (1 =
// visible, or null) hides a key, with the same arithmetic as softmax_rows before it divides by
// the sum; all zeros when nothing is visible.
SoftmaxPartial softmax_partial(float* scores, const uint8_t* mask, int64_t cols);

// Whether k and v hold one row per batch row, or one row every batch row shares (the audio
// caches of beams decoding one window).
enum class KvRows { per_batch_row, shared };

// q [B, H, Q, Dh], k and v [B, H, K, Dh] ([1, H, K, Dh] when shared), mask [Q, K] (1 = visible)
// or null -> y [B, H, Q, Dh]; softmax(q k^T * scale + mask) v per (b, h). Single queries run in
// blocks of keys on the shared thread pool (cpu_attention_one_query.h); many queries in register
// tiles on the pool (cpu_attention_tiles.h) where the CPU and head size allow, else two sgemms per
// head.
void attention(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
               int64_t batch, int64_t heads, int64_t q_len, int64_t k_len, int64_t dh, float scale,
               KvRows kv_rows = KvRows::per_batch_row);

// attention with k and v as f16 bits (the f16 decoder caches), widened to f32 as they are read;
// the arithmetic is attention's. A decoder step skips keys its mask hides from it.
void attention_f16kv(const float* q, const uint16_t* k, const uint16_t* v, const uint8_t* mask,
                     float* y, int64_t batch, int64_t heads, int64_t q_len, int64_t k_len,
                     int64_t dh, float scale, KvRows kv_rows = KvRows::per_batch_row);

// One head's attention probabilities, the ones `attention` weighs v with (no mask): q [Q, Dh],
// k [K, Dh] -> p [Q, K] = softmax(q k^T * scale) per row.
void attention_weights(const float* q, const float* k, float* p, int64_t q_len, int64_t k_len,
                       int64_t dh, float scale);

// ids [n] into table [V, H] -> y [n, H]; an id outside [0, V) throws std::out_of_range.
void embedding(const int32_t* ids, const float* table, float* y, int64_t n, int64_t vocab,
               int64_t width);

}  // namespace earshot::backend::cpu
