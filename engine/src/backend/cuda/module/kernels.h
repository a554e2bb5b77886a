// The CUDA module's kernels, one launcher per named op (or op part), asynchronous on `stream`.
// Shapes come checked from the plan; f16 values are passed as their IEEE bits (uint16_t) so that
// this header stays plain C++. Every launcher throws CudaError when the launch fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "backend/cuda/cuda_launch_rules.h"
#include "earshot/engine/backend/token_choice.h"

namespace earshot::backend::cuda::kernels {

// False when the module holds no kernel image the current device can run.
bool image_available();

// y [n] = half(x [n]), round to nearest even.
void to_half(const float* x, uint16_t* y, int64_t n, cudaStream_t stream);
// What a linear's output gets after its bias (plan epilogues): gelu_erf, or a residual of the
// output's shape added. Usable on both sides (plain data, applied in the kernels).
struct Epilogue {
    bool gelu = false;
    const float* residual = nullptr;  // [rows, n], or null
#ifdef __CUDACC__
    __host__ __device__
#endif
        float
        apply(float value, int64_t index) const {
        if (gelu) value = 0.5F * value * (1.0F + erff(value * 0.70710678118654752F));
        return residual != nullptr ? value + residual[index] : value;
    }
};

// y [m, n] = epilogue(x [m, k] w^T (+ bias [n] when not null)), w [n, k] f16, for
// 1 <= m <= kMaxGemvRows (cuda_launch_rules.h).
void gemv_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m, int64_t k,
              int64_t n, const Epilogue& epilogue, cudaStream_t stream);
// y [rows, n] = epilogue(y + bias) in one pass (bias may be null): a GEMM's output finished.
void finish_linear(float* y, const float* bias, int64_t rows, int64_t n, const Epilogue& epilogue,
                   cudaStream_t stream);
// y [rows, n] += bias [n]
void add_bias(float* y, const float* bias, int64_t rows, int64_t n, cudaStream_t stream);
// 0.5 x (1 + erf(x / sqrt 2)) in f32
void gelu_erf(const float* x, float* y, int64_t n, cudaStream_t stream);
// y [n] = a [n] + b [i % nb]
void add(const float* a, const float* b, float* y, int64_t n, int64_t nb, cudaStream_t stream);
// Rows of width d: (x - mean) / sqrt(var + eps) * w + b, statistics in f32 (two passes).
void layer_norm(const float* x, const float* w, const float* b, float* y, int64_t rows, int64_t d,
                float eps, cudaStream_t stream);
// Rows of width d: x / sqrt(mean(x^2) + eps) * w
void rms_norm(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps,
              cudaStream_t stream);

// A permutation of 4-byte elements, rank <= 6: output axis i has out_shape[i] and reads the input
// with stride src_strides[i].
struct Permutation {
    int rank = 0;
    int64_t out_shape[6] = {};
    int64_t src_strides[6] = {};
};
void permute(const uint32_t* x, uint32_t* y, int64_t total, const Permutation& permutation,
             cudaStream_t stream);

// [B, N, H * Dh] -> [B, H, N, Dh] and back.
void split_heads(const float* x, float* y, int64_t batch, int64_t n, int64_t heads, int64_t dh,
                 cudaStream_t stream);
void merge_heads(const float* x, float* y, int64_t batch, int64_t heads, int64_t n, int64_t dh,
                 cudaStream_t stream);

// Channels-last conv input x [B, L, Cin] -> cols [B * Lout, Cin * K] in f16, cols[b Lout + t,
// c K + j] = x[b, t stride + j - padding, c] (zero outside), the GEMM operand of w [Cout, Cin K].
void im2col_half(const float* x, uint16_t* cols, int64_t batch, int64_t length, int64_t in_channels,
                 int64_t kernel, int64_t stride, int64_t padding, int64_t out_length,
                 cudaStream_t stream);

// ids [n] into table [V, W] (f16) -> y [n, W] f32; ids were checked on the host.
void embedding(const int32_t* ids, const uint16_t* table, float* y, int64_t n, int64_t width,
               cudaStream_t stream);

// y [length, W] = table rows start .. start + length; start = *start_device when not null.
void slice_rows(const float* table, float* y, int64_t width, int64_t length, int64_t start,
                const int32_t* start_device, cudaStream_t stream);
// x [outer, n, inner] at `index` of the middle axis -> y [outer, inner]
void take(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, int64_t index,
          cudaStream_t stream);
// state [outer, state_len, inner] positions start .. start + value_len = value [outer, value_len,
// inner]; start = *start_device when not null.
void write_span(float* state, const float* value, int64_t outer, int64_t state_len,
                int64_t value_len, int64_t inner, int64_t start, const int32_t* start_device,
                cudaStream_t stream);
// The same into an f16 cache (values rounded to nearest even).
void write_span(uint16_t* state, const float* value, int64_t outer, int64_t state_len,
                int64_t value_len, int64_t inner, int64_t start, const int32_t* start_device,
                cudaStream_t stream);

void causal_mask(uint8_t* mask, int64_t size, cudaStream_t stream);  // [S, S], key <= query
void iota(int32_t* y, int64_t n, cudaStream_t stream);
void less_equal(const int32_t* x, const int32_t* bound_device, uint8_t* y, int64_t n,
                cudaStream_t stream);

// Attention's softmax: scores [rows, K] f32 (rows = B H Q, row r uses mask row r % Q; mask [Q, K],
// 1 = visible, or null) -> probs [rows, K] f16; a fully masked row is zeros.
void softmax_rows_half(const float* scores, const uint8_t* mask, uint16_t* probs, int64_t rows,
                       int64_t q_len, int64_t k_len, cudaStream_t stream);

// One head's attention probabilities in f32 (word alignment's cross-attention weights): for
// every batch row b and query i, p[b * p_row_stride + i K + j] = softmax_j(scale q . k_j) with
// q = q[b, head, i] of q [B, H, Q, Dh] f32 and k_j = k[b, head, j] of k [B, H, K, Dh]; no mask.
void attention_probabilities(const float* q, const float* k, float* p, int64_t batch, int64_t heads,
                             int64_t head, int64_t q_len, int64_t k_len, int64_t dh, float scale,
                             int64_t p_row_stride, cudaStream_t stream);
// The same over f16 keys (the caches).
void attention_probabilities(const float* q, const uint16_t* k, float* p, int64_t batch,
                             int64_t heads, int64_t head, int64_t q_len, int64_t k_len, int64_t dh,
                             float scale, int64_t p_row_stride, cudaStream_t stream);

// `kv_rows` (the f16 launchers below, which read the caches): how many (batch, head) rows k and v
// hold; row bh reads their row bh % kv_rows. Beam rows share one copy of the cross caches, so
// there kv_rows = H (one batch row's heads) while BH = B H; 0 (the default) means BH.

// Fused attention (scores and probabilities stay on chip; tensor-core products): q [BH, Q, Dh],
// k and v [kv_rows, K, Dh] f16, mask [Q, K] or null -> y [BH, Q, Dh] f32. Only for head sizes
// flash_attention_fits() accepts (cuda_launch_rules.h: multiples of 16 up to kMaxFlashHeadSize).
bool flash_attention_fits(int64_t dh);
void flash_attention(const uint16_t* q, const uint16_t* k, const uint16_t* v, const uint8_t* mask,
                     float* y, int64_t bh, int64_t q_len, int64_t k_len, int64_t dh, float scale,
                     cudaStream_t stream, int64_t kv_rows = 0);

// One query per (batch, head): q [BH, Dh], k and v [BH, K, Dh], mask [K] or null -> y [BH, Dh],
// scores and softmax in f32 in shared memory. False when K is too long for shared memory.
bool attend_one_query(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
                      int64_t bh, int64_t k_len, int64_t dh, float scale, cudaStream_t stream);
// The same over f16 keys and values (the caches), k and v [kv_rows, K, Dh].
bool attend_one_query(const float* q, const uint16_t* k, const uint16_t* v, const uint8_t* mask,
                      float* y, int64_t bh, int64_t k_len, int64_t dh, float scale,
                      cudaStream_t stream, int64_t kv_rows = 0);

// The fused encoder layer (issue 30). LayerNorm as layer_norm, rounded to f16 [rows, d].
void layer_norm_half(const float* x, const float* w, const float* b, uint16_t* y, int64_t rows,
                     int64_t d, float eps, cudaStream_t stream);
// y [rows, n] f16 = gelu_erf(x [rows, n] f16 + bias [n]) (bias may be null), in f32; y may be x
// (fc1's f16 output, in place).
void bias_gelu_half(const uint16_t* x, const float* bias, uint16_t* y, int64_t rows, int64_t n,
                    cudaStream_t stream);
// Self-attention over heads read in place: qkv [B, T, 3 D] f16 holds q, k and v side by side
// (head h at columns h Dh of each third), y [B, T, D] f16 gets the merged heads, softmax(q k^T
// scale) v per (batch, head), no mask. Needs flash_strided_fits(dh, D) (cuda_launch_rules.h) and
// 16-byte aligned qkv and y; false (nothing launched) otherwise.
bool flash_attention_strided(const uint16_t* qkv, uint16_t* y, int64_t batch, int64_t t_len,
                             int64_t heads, int64_t dh, float scale, cudaStream_t stream);
// Token choice (backend/token_choice.h) for rows of logits [rows, vocab] f32: the boost, the
// suppressed ids and each row's rules (rules [rows]) applied in work [rows, vocab] f32, then
// rule (e), the log-softmax normaliser in double and the best `choices` (1 .. kMaxChoices) ids
// into out [rows]. One block per row.
void choose_tokens(const float* logits, float* work, int64_t rows, int64_t vocab,
                   const int32_t* suppressed, int64_t suppressed_count, const int32_t* boosted,
                   int64_t boosted_count, float boost, int32_t timestamp_begin,
                   const RowRules* rules, int32_t choices, RowChoice* out, cudaStream_t stream);

// The next step's inputs from this step's choices (kernels_feed_step.cu): tokens [rows] i32 =
// chosen [rows]'s best token, *pos += 1. One block.
void feed_next_step(const RowChoice* chosen, int64_t rows, int32_t* tokens, int32_t* pos,
                    cudaStream_t stream);

}  // namespace earshot::backend::cuda::kernels
