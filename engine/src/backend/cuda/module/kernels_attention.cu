// Attention kernels: the masked softmax between the two batched GEMMs of a multi-query
// attention, and a whole single-query attention (a decoder step) in one kernel per (batch, head).
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kAttendThreads = 128;

__global__ void softmax_half_kernel(const float* scores, const uint8_t* mask, __half* probs,
                                    int64_t q_len, int64_t k_len) {
    EARSHOT_STATIC_SHARED(float, shared, 32);
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int64_t row = blockIdx.x;
    const float* s = scores + row * k_len;
    const uint8_t* visible = mask != nullptr ? mask + (row % q_len) * k_len : nullptr;
    __half* p = probs + row * k_len;
    float top = -INFINITY;
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        if (visible == nullptr || visible[j] != 0) top = fmaxf(top, s[j]);
    }
    top = block_max(top, shared);
    if (top == -INFINITY) {  // every key masked: zeros, as on the CPU
        for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) p[j] = __float2half_rn(0.0F);
        return;
    }
    float sum = 0.0F;
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        if (visible == nullptr || visible[j] != 0) sum += expf(s[j] - top);
    }
    const float inv = 1.0F / block_sum(sum, shared);
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        const bool shown = visible == nullptr || visible[j] != 0;
        p[j] = __float2half_rn(shown ? expf(s[j] - top) * inv : 0.0F);
    }
}

// Dynamic shared memory: q [Dh], scores [K], then 32 floats for the reductions.
__device__ inline float load(const float* p) { return *p; }
__device__ inline float load(const __half* p) { return __half2float(*p); }

// KV: float (keys and values just computed) or __half (the f16 caches).
template <typename KV>
__global__ void attend_one_kernel(const float* q, const KV* k, const KV* v, const uint8_t* mask,
                                  float* y, int64_t k_len, int64_t dh, float scale,
                                  int64_t kv_rows) {
    EARSHOT_DYNAMIC_SHARED(float, shared);
    wait_for_previous_kernel();
    let_next_kernel_start();
    float* qs = shared;
    float* scores = shared + dh;
    float* reduce = scores + k_len;
    const int64_t bh = blockIdx.x;
    const KV* kh = k + bh % kv_rows * k_len * dh;  // kv_rows: see kernels.h
    const KV* vh = v + bh % kv_rows * k_len * dh;
    for (int64_t d = threadIdx.x; d < dh; d += blockDim.x) qs[d] = q[bh * dh + d];
    __syncthreads();
    float top = -INFINITY;
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        float score = -INFINITY;
        if (mask == nullptr || mask[j] != 0) {
            const KV* kj = kh + j * dh;
            float dot = 0.0F;
            for (int64_t d = 0; d < dh; ++d) dot += qs[d] * load(kj + d);
            score = dot * scale;
        }
        scores[j] = score;
        top = fmaxf(top, score);
    }
    top = block_max(top, reduce);  // also makes every score visible to every thread
    float* yh = y + bh * dh;
    if (top == -INFINITY) {
        for (int64_t d = threadIdx.x; d < dh; d += blockDim.x) yh[d] = 0.0F;
        return;
    }
    float sum = 0.0F;
    for (int64_t j = threadIdx.x; j < k_len; j += blockDim.x) {
        const float e = scores[j] == -INFINITY ? 0.0F : expf(scores[j] - top);
        scores[j] = e;
        sum += e;
    }
    const float inv = 1.0F / block_sum(sum, reduce);  // synchronises the weights too
    for (int64_t d = threadIdx.x; d < dh; d += blockDim.x) {
        float acc = 0.0F;
        for (int64_t j = 0; j < k_len; ++j) acc += scores[j] * load(vh + j * dh + d);
        yh[d] = acc * inv;
    }
}

}  // namespace

void softmax_rows_half(const float* scores, const uint8_t* mask, uint16_t* probs, int64_t rows,
                       int64_t q_len, int64_t k_len, cudaStream_t stream) {
    if (rows == 0) return;
    EARSHOT_LAUNCH_DEPENDENT(softmax_half_kernel, static_cast<unsigned>(rows), kThreads, 0, stream)
    (scores, mask, reinterpret_cast<__half*>(probs), q_len, k_len);
    EARSHOT_CHECK_LAUNCH();
}

namespace {

template <typename KV>
bool attend_one(const float* q, const KV* k, const KV* v, const uint8_t* mask, float* y, int64_t bh,
                int64_t k_len, int64_t dh, float scale, cudaStream_t stream, int64_t kv_rows) {
    const int64_t shared_bytes = (dh + k_len + 32) * static_cast<int64_t>(sizeof(float));
    if (!attend_one_query_fits(k_len, dh)) return false;  // cuda_launch_rules.h
    if (bh == 0) return true;
    EARSHOT_LAUNCH_DEPENDENT(attend_one_kernel<KV>, static_cast<unsigned>(bh), kAttendThreads,
                             static_cast<size_t>(shared_bytes), stream)
    (q, k, v, mask, y, k_len, dh, scale, kv_rows > 0 ? kv_rows : bh);
    EARSHOT_CHECK_LAUNCH();
    return true;
}

}  // namespace

bool attend_one_query(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
                      int64_t bh, int64_t k_len, int64_t dh, float scale, cudaStream_t stream) {
    return attend_one(q, k, v, mask, y, bh, k_len, dh, scale, stream, bh);
}

bool attend_one_query(const float* q, const uint16_t* k, const uint16_t* v, const uint8_t* mask,
                      float* y, int64_t bh, int64_t k_len, int64_t dh, float scale,
                      cudaStream_t stream, int64_t kv_rows) {
    return attend_one(q, reinterpret_cast<const __half*>(k), reinterpret_cast<const __half*>(v),
                      mask, y, bh, k_len, dh, scale, stream, kv_rows);
}

}  // namespace earshot::backend::cuda::kernels
