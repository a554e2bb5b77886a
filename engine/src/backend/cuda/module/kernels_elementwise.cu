// Elementwise kernels: f16 conversion, bias, GELU, broadcast add, embedding gather, and the small
// integer and mask ops (iota, less_equal, causal_mask).
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

__global__ void to_half_kernel(const float* x, __half* y, int64_t n) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, n) { y[i] = __float2half_rn(x[i]); }
}

__global__ void add_bias_kernel(float* y, const float* bias, int64_t total, int64_t n) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, total) { y[i] += bias[i % n]; }
}

__global__ void finish_linear_kernel(float* y, const float* bias, int64_t total, int64_t n,
                                     Epilogue epilogue) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, total) {
        y[i] = epilogue.apply(bias != nullptr ? y[i] + bias[i % n] : y[i], i);
    }
}

__global__ void gelu_kernel(const float* x, float* y, int64_t n) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    constexpr float kInvSqrt2 = 0.70710678118654752F;
    EARSHOT_GRID_STRIDE(i, n) {
        const float v = x[i];
        y[i] = 0.5F * v * (1.0F + erff(v * kInvSqrt2));
    }
}

__global__ void add_kernel(const float* a, const float* b, float* y, int64_t n, int64_t nb) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, n) { y[i] = a[i] + b[i % nb]; }
}

__global__ void embedding_kernel(const int32_t* ids, const __half* table, float* y, int64_t n,
                                 int64_t width) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, n * width) {
        const int64_t row = i / width;
        const int64_t col = i % width;
        y[i] = __half2float(table[static_cast<int64_t>(ids[row]) * width + col]);
    }
}

__global__ void iota_kernel(int32_t* y, int64_t n) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, n) { y[i] = static_cast<int32_t>(i); }
}

__global__ void less_equal_kernel(const int32_t* x, const int32_t* bound, uint8_t* y, int64_t n) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, n) { y[i] = x[i] <= *bound ? 1 : 0; }
}

__global__ void causal_mask_kernel(uint8_t* mask, int64_t size) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, size * size) { mask[i] = (i % size) <= (i / size) ? 1 : 0; }
}

}  // namespace

bool image_available() {
    cudaFuncAttributes attributes{};
    const cudaError_t status = cudaFuncGetAttributes(&attributes, to_half_kernel);
    if (status == cudaSuccess) return true;
    cudaGetLastError();
    if (status == cudaErrorInvalidDeviceFunction || status == cudaErrorNoKernelImageForDevice ||
        status == cudaErrorUnsupportedPtxVersion) {
        return false;
    }
    throw_cuda(status, "cudaFuncGetAttributes", __FILE__, __LINE__);
}

void to_half(const float* x, uint16_t* y, int64_t n, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(to_half_kernel, grid_for(n), kThreads, 0, stream)
    (x, reinterpret_cast<__half*>(y), n);
    EARSHOT_CHECK_LAUNCH();
}

void add_bias(float* y, const float* bias, int64_t rows, int64_t n, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(add_bias_kernel, grid_for(rows * n), kThreads, 0, stream)
    (y, bias, rows * n, n);
    EARSHOT_CHECK_LAUNCH();
}

void finish_linear(float* y, const float* bias, int64_t rows, int64_t n, const Epilogue& epilogue,
                   cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(finish_linear_kernel, grid_for(rows * n), kThreads, 0, stream)
    (y, bias, rows * n, n, epilogue);
    EARSHOT_CHECK_LAUNCH();
}

void gelu_erf(const float* x, float* y, int64_t n, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(gelu_kernel, grid_for(n), kThreads, 0, stream)(x, y, n);
    EARSHOT_CHECK_LAUNCH();
}

void add(const float* a, const float* b, float* y, int64_t n, int64_t nb, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(add_kernel, grid_for(n), kThreads, 0, stream)(a, b, y, n, nb);
    EARSHOT_CHECK_LAUNCH();
}

void embedding(const int32_t* ids, const uint16_t* table, float* y, int64_t n, int64_t width,
               cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(embedding_kernel, grid_for(n * width), kThreads, 0, stream)
    (ids, reinterpret_cast<const __half*>(table), y, n, width);
    EARSHOT_CHECK_LAUNCH();
}

void iota(int32_t* y, int64_t n, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(iota_kernel, grid_for(n), kThreads, 0, stream)(y, n);
    EARSHOT_CHECK_LAUNCH();
}

void less_equal(const int32_t* x, const int32_t* bound_device, uint8_t* y, int64_t n,
                cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(less_equal_kernel, grid_for(n), kThreads, 0, stream)
    (x, bound_device, y, n);
    EARSHOT_CHECK_LAUNCH();
}

void causal_mask(uint8_t* mask, int64_t size, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(causal_mask_kernel, grid_for(size * size), kThreads, 0, stream)
    (mask, size);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
