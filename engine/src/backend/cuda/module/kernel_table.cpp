// The module's KernelTable (../kernel_table.h): each launcher of kernels.h and kernels_step.h on
// the default stream, with device memory and copies, so the per-kernel tests can call one kernel
// alone.
#include "backend/cuda/kernel_table.h"

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "cuda_lt_gemm.h"
#include "kernels.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

namespace {

namespace k = kernels;
constexpr cudaStream_t kDefaultStream = nullptr;

// One cuBLASLt handle for the process's table calls, made at the first (no workspace: cuBLASLt
// then picks among the algorithms that need none).
cublasLtHandle_t table_lt_handle() {
    static cublasLtHandle_t lt = [] {
        cublasLtHandle_t handle = nullptr;
        CUBLAS_CHECK(cublasLtCreate(&handle));
        return handle;
    }();
    return lt;
}

k::Epilogue epilogue(bool gelu, const float* residual) {
    k::Epilogue e;
    e.gelu = gelu;
    e.residual = residual;
    return e;
}

KernelTable make_table() {
    KernelTable t{};
    t.allocate = [](int64_t bytes) {
        void* device = nullptr;
        CUDA_CHECK(cudaMalloc(&device, static_cast<size_t>(bytes)));
        return device;
    };
    t.release = [](void* device) { CUDA_CHECK(cudaFree(device)); };
    t.upload = [](void* device, const void* host, int64_t bytes) {
        CUDA_CHECK(cudaMemcpy(device, host, static_cast<size_t>(bytes), cudaMemcpyHostToDevice));
    };
    t.download = [](void* host, const void* device, int64_t bytes) {
        CUDA_CHECK(cudaMemcpy(host, device, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost));
    };
    t.synchronize = [] {
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(kDefaultStream));
    };
    t.to_half = [](const float* x, uint16_t* y, int64_t n) { k::to_half(x, y, n, kDefaultStream); };
    t.gemv_f16 = [](const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                    int64_t kk, int64_t n, bool gelu, const float* residual) {
        k::gemv_f16(x, w, bias, y, m, kk, n, epilogue(gelu, residual), kDefaultStream);
    };
    t.finish_linear = [](float* y, const float* bias, int64_t rows, int64_t n, bool gelu,
                         const float* residual) {
        k::finish_linear(y, bias, rows, n, epilogue(gelu, residual), kDefaultStream);
    };
    t.add_bias = [](float* y, const float* bias, int64_t rows, int64_t n) {
        k::add_bias(y, bias, rows, n, kDefaultStream);
    };
    t.gelu_erf = [](const float* x, float* y, int64_t n) { k::gelu_erf(x, y, n, kDefaultStream); };
    t.add = [](const float* a, const float* b, float* y, int64_t n, int64_t nb) {
        k::add(a, b, y, n, nb, kDefaultStream);
    };
    t.layer_norm = [](const float* x, const float* w, const float* b, float* y, int64_t rows,
                      int64_t d,
                      float eps) { k::layer_norm(x, w, b, y, rows, d, eps, kDefaultStream); };
    t.rms_norm = [](const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
        k::rms_norm(x, w, y, rows, d, eps, kDefaultStream);
    };
    t.permute = [](const uint32_t* x, uint32_t* y, int64_t total, int rank,
                   const int64_t* out_shape, const int64_t* src_strides) {
        k::Permutation permutation;
        permutation.rank = rank;
        for (int axis = 0; axis < rank; ++axis) {
            permutation.out_shape[axis] = out_shape[axis];
            permutation.src_strides[axis] = src_strides[axis];
        }
        k::permute(x, y, total, permutation, kDefaultStream);
    };
    t.split_heads = [](const float* x, float* y, int64_t batch, int64_t n, int64_t heads,
                       int64_t dh) { k::split_heads(x, y, batch, n, heads, dh, kDefaultStream); };
    t.merge_heads = [](const float* x, float* y, int64_t batch, int64_t heads, int64_t n,
                       int64_t dh) { k::merge_heads(x, y, batch, heads, n, dh, kDefaultStream); };
    t.im2col_half = [](const float* x, uint16_t* cols, int64_t batch, int64_t length,
                       int64_t in_channels, int64_t kernel, int64_t stride, int64_t padding,
                       int64_t out_length) {
        k::im2col_half(x, cols, batch, length, in_channels, kernel, stride, padding, out_length,
                       kDefaultStream);
    };
    t.embedding = [](const int32_t* ids, const uint16_t* table, float* y, int64_t n,
                     int64_t width) { k::embedding(ids, table, y, n, width, kDefaultStream); };
    t.slice_rows = [](const float* table, float* y, int64_t width, int64_t length, int64_t start,
                      const int32_t* start_device) {
        k::slice_rows(table, y, width, length, start, start_device, kDefaultStream);
    };
    t.take = [](const float* x, float* y, int64_t outer, int64_t n, int64_t inner, int64_t index) {
        k::take(x, y, outer, n, inner, index, kDefaultStream);
    };
    t.write_span_f32 = [](float* state, const float* value, int64_t outer, int64_t state_len,
                          int64_t value_len, int64_t inner, int64_t start,
                          const int32_t* start_device) {
        k::write_span(state, value, outer, state_len, value_len, inner, start, start_device,
                      kDefaultStream);
    };
    t.write_span_f16 = [](uint16_t* state, const float* value, int64_t outer, int64_t state_len,
                          int64_t value_len, int64_t inner, int64_t start,
                          const int32_t* start_device) {
        k::write_span(state, value, outer, state_len, value_len, inner, start, start_device,
                      kDefaultStream);
    };
    t.causal_mask = [](uint8_t* mask, int64_t size) { k::causal_mask(mask, size, kDefaultStream); };
    t.iota = [](int32_t* y, int64_t n) { k::iota(y, n, kDefaultStream); };
    t.less_equal = [](const int32_t* x, const int32_t* bound_device, uint8_t* y, int64_t n) {
        k::less_equal(x, bound_device, y, n, kDefaultStream);
    };
    t.softmax_rows_half = [](const float* scores, const uint8_t* mask, uint16_t* probs,
                             int64_t rows, int64_t q_len, int64_t k_len) {
        k::softmax_rows_half(scores, mask, probs, rows, q_len, k_len, kDefaultStream);
    };
    t.attention_probabilities_f32 = [](const float* q, const float* kk, float* p, int64_t batch,
                                       int64_t heads, int64_t head, int64_t q_len, int64_t k_len,
                                       int64_t dh, float scale, int64_t p_row_stride) {
        k::attention_probabilities(q, kk, p, batch, heads, head, q_len, k_len, dh, scale,
                                   p_row_stride, kDefaultStream);
    };
    t.attention_probabilities_f16 = [](const float* q, const uint16_t* kk, float* p, int64_t batch,
                                       int64_t heads, int64_t head, int64_t q_len, int64_t k_len,
                                       int64_t dh, float scale, int64_t p_row_stride) {
        k::attention_probabilities(q, kk, p, batch, heads, head, q_len, k_len, dh, scale,
                                   p_row_stride, kDefaultStream);
    };
    t.flash_attention_fits = [](int64_t dh) { return k::flash_attention_fits(dh); };
    t.flash_attention = [](const uint16_t* q, const uint16_t* kk, const uint16_t* v,
                           const uint8_t* mask, float* y, int64_t bh, int64_t q_len, int64_t k_len,
                           int64_t dh, float scale) {
        k::flash_attention(q, kk, v, mask, y, bh, q_len, k_len, dh, scale, kDefaultStream);
    };
    t.attend_one_query_f32 = [](const float* q, const float* kk, const float* v,
                                const uint8_t* mask, float* y, int64_t bh, int64_t k_len,
                                int64_t dh, float scale) {
        return k::attend_one_query(q, kk, v, mask, y, bh, k_len, dh, scale, kDefaultStream);
    };
    t.attend_one_query_f16 = [](const float* q, const uint16_t* kk, const uint16_t* v,
                                const uint8_t* mask, float* y, int64_t bh, int64_t k_len,
                                int64_t dh, float scale) {
        return k::attend_one_query(q, kk, v, mask, y, bh, k_len, dh, scale, kDefaultStream);
    };
    t.gemv_f16_columns = [](const float* x, const uint16_t* w, const float* bias, float* y,
                            int64_t m, int64_t kk, int64_t n, bool gelu, const float* residual) {
        k::gemv_f16_columns(x, w, bias, y, m, kk, n, epilogue(gelu, residual), kDefaultStream);
    };
    t.split_keys_scratch_floats = [](int64_t bh, int64_t k_len, int64_t dh) {
        return split_keys_partial_floats(bh, k_len, dh);
    };
    t.attend_split_keys_f32 = [](const float* q, const float* kk, const float* v,
                                 const uint8_t* mask, float* y, float* partials, unsigned* done,
                                 int64_t bh, int64_t k_len, int64_t dh, float scale) {
        return k::attend_one_query_split_keys(q, kk, v, mask, y, partials, done, bh, k_len, dh,
                                              scale, kDefaultStream);
    };
    t.attend_split_keys_f16 = [](const float* q, const uint16_t* kk, const uint16_t* v,
                                 const uint8_t* mask, float* y, float* partials, unsigned* done,
                                 int64_t bh, int64_t k_len, int64_t dh, float scale) {
        return k::attend_one_query_split_keys(q, kk, v, mask, y, partials, done, bh, k_len, dh,
                                              scale, kDefaultStream);
    };
    t.gemv_f16_fused = [](const FusedGemv& args) {
        return k::gemv_f16_fused(args, kDefaultStream);
    };
    t.block_bytes = [](int32_t block_type) { return k::gemv_block_bytes(block_type); };
    t.gemv_blocks = [](const float* x, const void* w, int32_t block_type, const float* bias,
                       float* y, int64_t m, int64_t kk, int64_t n, bool gelu,
                       const float* residual) {
        return k::gemv_blocks(x, w, block_type, bias, y, m, kk, n, epilogue(gelu, residual),
                              kDefaultStream);
    };
    t.dequantize_blocks_f16 = [](const void* blocks, int32_t block_type, uint16_t* y,
                                 int64_t n_blocks) {
        return k::dequantize_blocks_f16(blocks, block_type, y, n_blocks, kDefaultStream);
    };
    t.layer_norm_half = [](const float* x, const float* w, const float* b, uint16_t* y,
                           int64_t rows, int64_t d, float eps) {
        k::layer_norm_half(x, w, b, y, rows, d, eps, kDefaultStream);
    };
    t.bias_gelu_half = [](const uint16_t* x, const float* bias, uint16_t* y, int64_t rows,
                          int64_t n) { k::bias_gelu_half(x, bias, y, rows, n, kDefaultStream); };
    t.flash_attention_strided = [](const uint16_t* qkv, uint16_t* y, int64_t batch, int64_t t_len,
                                   int64_t heads, int64_t dh, float scale) {
        return k::flash_attention_strided(qkv, y, batch, t_len, heads, dh, scale, kDefaultStream);
    };
    t.lt_gemm = [](const uint16_t* x, const uint16_t* w, const void* bias, const float* residual,
                   void* y, bool y_half, int64_t m, int64_t kk, int64_t n) {
        const cublasLtHandle_t lt = table_lt_handle();
        LtGemm g;
        g.x = x;
        g.w = w;
        g.bias = bias;
        g.residual = residual;
        g.y = y;
        g.y_half = y_half;
        g.m = m;
        g.k = kk;
        g.n = n;
        lt_gemm(lt, g, nullptr, 0, kDefaultStream);
    };
    t.lt_gemm_batched = [](const uint16_t* x, const uint16_t* w, const uint16_t* bias, uint16_t* y,
                           int64_t m, int64_t kk, int64_t n, int64_t batch, int64_t x_stride,
                           int64_t w_stride, int64_t y_stride, int64_t bias_stride) {
        LtGemm g;
        g.x = x;
        g.w = w;
        g.bias = bias;
        g.y = y;
        g.y_half = true;
        g.m = m;
        g.k = kk;
        g.n = n;
        g.batch = batch;
        g.x_stride = x_stride;
        g.w_stride = w_stride;
        g.y_stride = y_stride;
        g.bias_stride = bias_stride;
        lt_gemm(table_lt_handle(), g, nullptr, 0, kDefaultStream);
    };
    t.choose_tokens =
        [](const float* logits, float* work, int64_t rows, int64_t vocab, const int32_t* suppressed,
           int64_t suppressed_count, const int32_t* boosted, int64_t boosted_count, float boost,
           int32_t timestamp_begin, const RowRules* rules, int32_t choices, RowChoice* out) {
            k::choose_tokens(logits, work, rows, vocab, suppressed, suppressed_count, boosted,
                             boosted_count, boost, timestamp_begin, rules, choices, out,
                             kDefaultStream);
        };
    return t;
}

}  // namespace

}  // namespace earshot::backend::cuda

extern "C" __attribute__((visibility("default"))) const earshot::backend::cuda::KernelTable*
earshot_cuda_kernel_table(int version) {
    if (version != earshot::backend::cuda::kKernelTableVersion) return nullptr;
    static const earshot::backend::cuda::KernelTable table = earshot::backend::cuda::make_table();
    return &table;
}
