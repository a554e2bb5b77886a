// A linear of a few rows (a decoder step, a beam of them): y [m, n] = x [m, k] w^T + bias with
// f16 weights read once at full width (16-byte loads), f32 activations and f32 accumulation, and
// the bias in the same pass: one kernel where the GEMM path needs three (to f16, GEMM, bias).
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kWarpsPerBlock = kThreads / 32;
// Enough warps for every SM of a large GPU (132 on an H100/H200) to have 16 in flight; a warp
// takes several consecutive columns when n is larger than that.
constexpr int64_t kTargetWarps = 132 * 16;
constexpr int64_t kMaxColumnsPerWarp = 16;

__global__ void gemv_f16_kernel(const float* x, const __half* w, const float* bias, float* y,
                                int64_t m, int64_t k, int64_t n, int64_t columns_per_warp,
                                Epilogue epilogue) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int64_t first = warp * columns_per_warp;
    const bool wide = (k % 8) == 0;
    for (int64_t column = first; column < first + columns_per_warp && column < n; ++column) {
        float acc[kMaxGemvRows] = {};
        const __half* row = w + column * k;
        if (wide) {
            for (int64_t j = static_cast<int64_t>(lane) * 8; j < k; j += 32 * 8) {
                const uint4 raw = *reinterpret_cast<const uint4*>(row + j);
                const __half* halves = reinterpret_cast<const __half*>(&raw);
                float weights[8];
                for (int i = 0; i < 8; ++i) weights[i] = __half2float(halves[i]);
                for (int64_t r = 0; r < m; ++r) {
                    const float* xr = x + r * k + j;
                    float sum = acc[r];
                    for (int i = 0; i < 8; ++i) sum += weights[i] * xr[i];
                    acc[r] = sum;
                }
            }
        } else {
            for (int64_t j = lane; j < k; j += 32) {
                const float weight = __half2float(row[j]);
                for (int64_t r = 0; r < m; ++r) acc[r] += weight * x[r * k + j];
            }
        }
        for (int64_t r = 0; r < m; ++r) {
            const float total = warp_sum(acc[r]);
            if (lane == 0) {
                y[r * n + column] =
                    epilogue.apply(bias != nullptr ? total + bias[column] : total, r * n + column);
            }
        }
    }
}

}  // namespace

void gemv_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m, int64_t k,
              int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    if (m < 1 || m > kMaxGemvRows || n == 0) return;
    const int64_t columns =
        std::clamp<int64_t>((n + kTargetWarps - 1) / kTargetWarps, 1, kMaxColumnsPerWarp);
    const int64_t warps = (n + columns - 1) / columns;
    const auto blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    EARSHOT_LAUNCH_DEPENDENT(gemv_f16_kernel, blocks, kThreads, 0, stream)
    (x, reinterpret_cast<const __half*>(w), bias, y, m, k, n, columns, epilogue);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
