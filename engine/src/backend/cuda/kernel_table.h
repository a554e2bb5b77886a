// The CUDA module's kernels one at a time, for the per-kernel tests: device memory, copies and
// every launcher of module/kernels.h on the default stream, in one table the module exports. The
// engine never uses it; a test reaches it with dlsym on the module the engine loaded.
#pragma once

#include <cstdint>

#include "backend/cuda/fused_gemv.h"
#include "earshot/engine/backend/token_choice.h"

namespace earshot::backend::cuda {

// Bumped whenever the table changes.
inline constexpr int kKernelTableVersion = 8;
// extern "C" const KernelTable* earshot_cuda_kernel_table(int version): nullptr on a mismatch.
inline constexpr const char* kKernelTableEntryName = "earshot_cuda_kernel_table";

// Shapes and meanings as in module/kernels.h; f16 values are IEEE half bits. Every call throws
// CudaError when CUDA fails; launches are asynchronous until synchronize().
struct KernelTable {
    void* (*allocate)(int64_t bytes);  // device memory, uninitialised
    void (*release)(void* device);
    void (*upload)(void* device, const void* host, int64_t bytes);
    void (*download)(void* host, const void* device, int64_t bytes);
    void (*synchronize)();

    void (*to_half)(const float* x, uint16_t* y, int64_t n);
    // The Epilogue is (gelu, residual).
    void (*gemv_f16)(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                     int64_t k, int64_t n, bool gelu, const float* residual);
    void (*finish_linear)(float* y, const float* bias, int64_t rows, int64_t n, bool gelu,
                          const float* residual);
    void (*add_bias)(float* y, const float* bias, int64_t rows, int64_t n);
    void (*gelu_erf)(const float* x, float* y, int64_t n);
    void (*add)(const float* a, const float* b, float* y, int64_t n, int64_t nb);
    void (*layer_norm)(const float* x, const float* w, const float* b, float* y, int64_t rows,
                       int64_t d, float eps);
    void (*rms_norm)(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps);
    // Permutation given as its rank (<= 6), output shape and source strides.
    void (*permute)(const uint32_t* x, uint32_t* y, int64_t total, int rank,
                    const int64_t* out_shape, const int64_t* src_strides);
    void (*split_heads)(const float* x, float* y, int64_t batch, int64_t n, int64_t heads,
                        int64_t dh);
    void (*merge_heads)(const float* x, float* y, int64_t batch, int64_t heads, int64_t n,
                        int64_t dh);
    void (*im2col_half)(const float* x, uint16_t* cols, int64_t batch, int64_t length,
                        int64_t in_channels, int64_t kernel, int64_t stride, int64_t padding,
                        int64_t out_length);
    void (*embedding)(const int32_t* ids, const uint16_t* table, float* y, int64_t n,
                      int64_t width);
    void (*slice_rows)(const float* table, float* y, int64_t width, int64_t length, int64_t start,
                       const int32_t* start_device);
    void (*take)(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, int64_t index);
    void (*write_span_f32)(float* state, const float* value, int64_t outer, int64_t state_len,
                           int64_t value_len, int64_t inner, int64_t start,
                           const int32_t* start_device);
    void (*write_span_f16)(uint16_t* state, const float* value, int64_t outer, int64_t state_len,
                           int64_t value_len, int64_t inner, int64_t start,
                           const int32_t* start_device);
    void (*causal_mask)(uint8_t* mask, int64_t size);
    void (*iota)(int32_t* y, int64_t n);
    void (*less_equal)(const int32_t* x, const int32_t* bound_device, uint8_t* y, int64_t n);
    void (*softmax_rows_half)(const float* scores, const uint8_t* mask, uint16_t* probs,
                              int64_t rows, int64_t q_len, int64_t k_len);
    void (*attention_probabilities_f32)(const float* q, const float* k, float* p, int64_t batch,
                                        int64_t heads, int64_t head, int64_t q_len, int64_t k_len,
                                        int64_t dh, float scale, int64_t p_row_stride);
    void (*attention_probabilities_f16)(const float* q, const uint16_t* k, float* p, int64_t batch,
                                        int64_t heads, int64_t head, int64_t q_len, int64_t k_len,
                                        int64_t dh, float scale, int64_t p_row_stride);
    bool (*flash_attention_fits)(int64_t dh);
    void (*flash_attention)(const uint16_t* q, const uint16_t* k, const uint16_t* v,
                            const uint8_t* mask, float* y, int64_t bh, int64_t q_len, int64_t k_len,
                            int64_t dh, float scale);
    bool (*attend_one_query_f32)(const float* q, const float* k, const float* v,
                                 const uint8_t* mask, float* y, int64_t bh, int64_t k_len,
                                 int64_t dh, float scale);
    bool (*attend_one_query_f16)(const float* q, const uint16_t* k, const uint16_t* v,
                                 const uint8_t* mask, float* y, int64_t bh, int64_t k_len,
                                 int64_t dh, float scale);
    // A decoder step's new kernels (version 3): the multi-column GEMV, and the one-query attention
    // split over the keys with its partial results in `partials` (split_keys_scratch_floats) and
    // its counts in done [BH] (zero before, zero after).
    void (*gemv_f16_columns)(const float* x, const uint16_t* w, const float* bias, float* y,
                             int64_t m, int64_t k, int64_t n, bool gelu, const float* residual);
    int64_t (*split_keys_scratch_floats)(int64_t bh, int64_t k_len, int64_t dh);
    bool (*attend_split_keys_f32)(const float* q, const float* k, const float* v,
                                  const uint8_t* mask, float* y, float* partials, unsigned* done,
                                  int64_t bh, int64_t k_len, int64_t dh, float scale);
    bool (*attend_split_keys_f16)(const float* q, const uint16_t* k, const uint16_t* v,
                                  const uint8_t* mask, float* y, float* partials, unsigned* done,
                                  int64_t bh, int64_t k_len, int64_t dh, float scale);
    // Version 4: the fused GEMV (LayerNorm, up to three linears, cache writes at *pos); false
    // when it refuses the arguments (then nothing ran).
    bool (*gemv_f16_fused)(const FusedGemv& args);
    // Version 5 (issue 34), weights as quantized blocks of a ggml type id (q8_0 8, q5_0 6, q4_0
    // 2): the bytes of one block the module's kernels read (0: a type they do not read), the
    // GEMV on w [n, k / 32 blocks] (false: refused, nothing ran), and the blocks decoded to f16.
    // FusedGemv::block_type (version 5) selects the blocks in gemv_f16_fused.
    int64_t (*block_bytes)(int32_t block_type);
    bool (*gemv_blocks)(const float* x, const void* w, int32_t block_type, const float* bias,
                        float* y, int64_t m, int64_t k, int64_t n, bool gelu,
                        const float* residual);
    bool (*dequantize_blocks_f16)(const void* blocks, int32_t block_type, uint16_t* y,
                                  int64_t n_blocks);
    // Version 6 (issue 30), the fused encoder layer's kernels: LayerNorm and bias + erf GELU
    // writing f16, the flash attention over heads read in place from qkv [B, T, 3 D] writing
    // merged heads [B, T, D] f16 (false: refused, nothing ran), and the cuBLASLt GEMM y [m, n] =
    // x [m, k] w^T + bias + residual (y f16 with an f16 bias, or f32 with f32 bias and residual;
    // either may be null).
    void (*layer_norm_half)(const float* x, const float* w, const float* b, uint16_t* y,
                            int64_t rows, int64_t d, float eps);
    // Version 8: x f16 (fc1's output, y may be x).
    void (*bias_gelu_half)(const uint16_t* x, const float* bias, uint16_t* y, int64_t rows,
                           int64_t n);
    bool (*flash_attention_strided)(const uint16_t* qkv, uint16_t* y, int64_t batch, int64_t t_len,
                                    int64_t heads, int64_t dh, float scale);
    void (*lt_gemm)(const uint16_t* x, const uint16_t* w, const void* bias, const float* residual,
                    void* y, bool y_half, int64_t m, int64_t k, int64_t n);
    // Version 7 (issue 30): token choice on logits [rows, vocab] (kernels.h choose_tokens), the
    // lists, rules and out in device memory, work [rows, vocab] f32.
    void (*choose_tokens)(const float* logits, float* work, int64_t rows, int64_t vocab,
                          const int32_t* suppressed, int64_t suppressed_count,
                          const int32_t* boosted, int64_t boosted_count, float boost,
                          int32_t timestamp_begin, const RowRules* rules, int32_t choices,
                          RowChoice* out);
    // Version 8 (issue 30): the cuBLASLt GEMM strided-batched, f16 out, as listen's cross k/v
    // write each cache (cuda_lt_gemm.h LtGemm's strides, in elements): batch i computes y + i
    // y_stride [m, n] = (x + i x_stride) [m, k] (w + i w_stride)^T + (bias + i bias_stride) [n].
    void (*lt_gemm_batched)(const uint16_t* x, const uint16_t* w, const uint16_t* bias, uint16_t* y,
                            int64_t m, int64_t k, int64_t n, int64_t batch, int64_t x_stride,
                            int64_t w_stride, int64_t y_stride, int64_t bias_stride);
};

}  // namespace earshot::backend::cuda
