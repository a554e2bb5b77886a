// The fused encoder layer's element-wise kernel (issue 30): fc1's bias with the erf GELU on fc1's
// f16 output, in place, writing the f16 operand of fc2 (its LayerNorm writing f16 is
// layer_norm_half, kernels_norm.cu). (The cuBLASLt GELU epilogue is documented only as "GELU";
// Whisper's is the erf form, so the GELU stays here, in f32, rounded once to f16. The bias stays
// here too, in f32: cuBLASLt documents the bias of an f16 output with 32F compute only as f16.)
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

// y [rows, n] f16 = gelu_erf(x [rows, n] f16 + bias [n]), in f32; y may be x.
__global__ void bias_gelu_half_kernel(const __half* x, const float* bias, __half* y, int64_t total,
                                      int64_t n) {
    constexpr float kInvSqrt2 = 0.70710678118654752F;
    EARSHOT_GRID_STRIDE(i, total) {
        const float in = __half2float(x[i]);
        const float v = bias != nullptr ? in + bias[i % n] : in;
        y[i] = __float2half_rn(0.5F * v * (1.0F + erff(v * kInvSqrt2)));
    }
}

}  // namespace

void bias_gelu_half(const uint16_t* x, const float* bias, uint16_t* y, int64_t rows, int64_t n,
                    cudaStream_t stream) {
    if (rows * n == 0) return;
    EARSHOT_LAUNCH(bias_gelu_half_kernel, grid_for(rows * n), kThreads, 0, stream)
    (reinterpret_cast<const __half*>(x), bias, reinterpret_cast<__half*>(y), rows * n, n);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
