// Normalisation kernels: one block per row, statistics in f32 by block reductions.
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

// The value a row of LayerNorm stores: f32 as computed, or rounded once to f16 (the operand of
// the GEMM that follows, in the fused encoder layer).
__device__ inline void store(float* y, float v) { *y = v; }
__device__ inline void store(__half* y, float v) { *y = __float2half_rn(v); }

template <typename Out>
__global__ void layer_norm_kernel(const float* x, const float* w, const float* b, Out* y, int64_t d,
                                  float eps) {
    EARSHOT_STATIC_SHARED(float, shared, 32);
    wait_for_previous_kernel();
    let_next_kernel_start();
    const float* xr = x + static_cast<int64_t>(blockIdx.x) * d;
    Out* yr = y + static_cast<int64_t>(blockIdx.x) * d;
    float sum = 0.0F;
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) sum += xr[j];
    const float mean = block_sum(sum, shared) / static_cast<float>(d);
    float squares = 0.0F;
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
        const float c = xr[j] - mean;
        squares += c * c;
    }
    const float variance = block_sum(squares, shared) / static_cast<float>(d);
    const float inv = 1.0F / sqrtf(variance + eps);
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x)
        store(yr + j, (xr[j] - mean) * inv * w[j] + b[j]);
}

__global__ void rms_norm_kernel(const float* x, const float* w, float* y, int64_t d, float eps) {
    EARSHOT_STATIC_SHARED(float, shared, 32);
    wait_for_previous_kernel();
    let_next_kernel_start();
    const float* xr = x + static_cast<int64_t>(blockIdx.x) * d;
    float* yr = y + static_cast<int64_t>(blockIdx.x) * d;
    float squares = 0.0F;
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) squares += xr[j] * xr[j];
    const float inv = 1.0F / sqrtf(block_sum(squares, shared) / static_cast<float>(d) + eps);
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) yr[j] = xr[j] * inv * w[j];
}

}  // namespace

void layer_norm(const float* x, const float* w, const float* b, float* y, int64_t rows, int64_t d,
                float eps, cudaStream_t stream) {
    if (rows == 0) return;
    EARSHOT_LAUNCH_DEPENDENT(layer_norm_kernel<float>, static_cast<unsigned>(rows), kThreads, 0,
                             stream)
    (x, w, b, y, d, eps);
    EARSHOT_CHECK_LAUNCH();
}

void layer_norm_half(const float* x, const float* w, const float* b, uint16_t* y, int64_t rows,
                     int64_t d, float eps, cudaStream_t stream) {
    if (rows == 0) return;
    EARSHOT_LAUNCH_DEPENDENT(layer_norm_kernel<__half>, static_cast<unsigned>(rows), kThreads, 0,
                             stream)
    (x, w, b, reinterpret_cast<__half*>(y), d, eps);
    EARSHOT_CHECK_LAUNCH();
}

void rms_norm(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps,
              cudaStream_t stream) {
    if (rows == 0) return;
    EARSHOT_LAUNCH_DEPENDENT(rms_norm_kernel, static_cast<unsigned>(rows), kThreads, 0, stream)
    (x, w, y, d, eps);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
