// The attention probabilities of one head kept for word alignment: softmax(q k^T * scale) rows in
// f32, one block per (batch row, query), as the CPU backend's attention_weights computes them.
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

__device__ inline float key_value(const float* p) { return *p; }
__device__ inline float key_value(const __half* p) { return __half2float(*p); }

// Block (b, i): q row [Dh] into shared memory, the K scores written to p's row, then the row's
// max and sum (block reductions) and the row normalised in place. Each thread reads back only
// the entries it wrote.
template <typename K>
__global__ void attention_probabilities_kernel(const float* q, const K* k, float* p, int64_t heads,
                                               int64_t head, int64_t q_len, int64_t k_len,
                                               int64_t dh, float scale, int64_t p_row_stride) {
    EARSHOT_DYNAMIC_SHARED(float, shared);
    wait_for_previous_kernel();
    let_next_kernel_start();
    float* qs = shared;       // [Dh]
    float* reduce = qs + dh;  // [32]
    const int64_t b = static_cast<int64_t>(blockIdx.x) / q_len;
    const int64_t i = static_cast<int64_t>(blockIdx.x) % q_len;
    const int64_t bh = b * heads + head;
    const float* qi = q + (bh * q_len + i) * dh;
    const K* kh = k + bh * k_len * dh;
    float* row = p + b * p_row_stride + i * k_len;
    for (int64_t d = threadIdx.x; d < dh; d += blockDim.x) qs[d] = qi[d];
    __syncthreads();
    float top = -INFINITY;
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        const K* kj = kh + j * dh;
        float dot = 0.0F;
        for (int64_t d = 0; d < dh; ++d) dot += qs[d] * key_value(kj + d);
        const float score = scale * dot;
        row[j] = score;
        top = fmaxf(top, score);
    }
    top = block_max(top, reduce);
    float sum = 0.0F;
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        const float e = expf(row[j] - top);
        row[j] = e;
        sum += e;
    }
    const float inv = 1.0F / block_sum(sum, reduce);
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) row[j] *= inv;
}

template <typename K>
void launch_probabilities(const float* q, const K* k, float* p, int64_t batch, int64_t heads,
                          int64_t head, int64_t q_len, int64_t k_len, int64_t dh, float scale,
                          int64_t p_row_stride, cudaStream_t stream) {
    if (batch == 0 || q_len == 0 || k_len == 0) return;
    const auto shared_bytes = static_cast<size_t>((dh + 32) * static_cast<int64_t>(sizeof(float)));
    EARSHOT_LAUNCH_DEPENDENT(attention_probabilities_kernel<K>,
                             static_cast<unsigned>(batch * q_len), kThreads, shared_bytes, stream)
    (q, k, p, heads, head, q_len, k_len, dh, scale, p_row_stride);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace

void attention_probabilities(const float* q, const float* k, float* p, int64_t batch, int64_t heads,
                             int64_t head, int64_t q_len, int64_t k_len, int64_t dh, float scale,
                             int64_t p_row_stride, cudaStream_t stream) {
    launch_probabilities(q, k, p, batch, heads, head, q_len, k_len, dh, scale, p_row_stride,
                         stream);
}

void attention_probabilities(const float* q, const uint16_t* k, float* p, int64_t batch,
                             int64_t heads, int64_t head, int64_t q_len, int64_t k_len, int64_t dh,
                             float scale, int64_t p_row_stride, cudaStream_t stream) {
    launch_probabilities(q, reinterpret_cast<const __half*>(k), p, batch, heads, head, q_len, k_len,
                         dh, scale, p_row_stride, stream);
}

}  // namespace earshot::backend::cuda::kernels
