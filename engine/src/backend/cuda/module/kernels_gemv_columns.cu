// A linear of a few rows at memory speed (a decoder step): each warp owns 2 or 4 output columns,
// and every lane keeps 2 x Columns independent 16-byte weight loads in flight before it reads the
// matching 8 elements of x once into registers for all of its columns. f32 activations and
// accumulation, bias and epilogue in the same pass, as gemv_f16 (kernels_gemv.cu), which stays
// for shapes without 16-byte rows and as the kernel to compare against.
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels_step.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kWarpsPerBlock = kThreads / 32;
constexpr int kElementsPerLoad = 8;                // f16 in 16 bytes
constexpr int64_t kChunk = 32 * kElementsPerLoad;  // elements one warp-wide load covers
constexpr int kUnroll = 2;                         // chunks in flight per loop
// Four columns per warp once there are warps enough for every SM of a large GPU (132 on an
// H100/H200) to hold 16 of them; two below that, so small layers still fill the GPU.
constexpr int64_t kTargetWarps = 132 * 16;

// Rows: 1 (a batch-1 step, no row loop at run time) or kMaxGemvRows (m rows, m <= kMaxGemvRows).
template <int Columns, int Rows>
__global__ void gemv_columns_kernel(const float* x, const __half* w, const float* bias, float* y,
                                    int64_t m, int64_t k, int64_t n, Epilogue epilogue) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int64_t first = warp * Columns;
    if (first >= n) return;  // the whole warp
    const __half* rows[Columns];
    for (int c = 0; c < Columns; ++c) {
        // Columns past n read the last one's weights (in bounds) and write nothing.
        rows[c] = w + (first + c < n ? first + c : n - 1) * k;
    }
    float acc[Columns][Rows] = {};
    int64_t j = static_cast<int64_t>(lane) * kElementsPerLoad;
    // Both chunks of an iteration lie inside k: k % 8 == 0, so j + kChunk < k covers j + kChunk
    // + 7.
    for (; j < k; j += kUnroll * kChunk) {
        const int chunks = j + kChunk < k ? kUnroll : 1;
        uint4 raw[kUnroll][Columns];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            if (u >= chunks) break;
#pragma unroll
            for (int c = 0; c < Columns; ++c) {
                raw[u][c] = *reinterpret_cast<const uint4*>(rows[c] + j + u * kChunk);
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            if (u >= chunks) break;
#pragma unroll
            for (int r = 0; r < Rows; ++r) {
                if (r >= m) break;
                const float* xr = x + r * k + j + u * kChunk;
                const float4 lo = *reinterpret_cast<const float4*>(xr);
                const float4 hi = *reinterpret_cast<const float4*>(xr + 4);
                const float xs[kElementsPerLoad] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
                for (int c = 0; c < Columns; ++c) {
                    const __half* halves = reinterpret_cast<const __half*>(&raw[u][c]);
                    float sum = acc[c][r];
                    for (int i = 0; i < kElementsPerLoad; ++i) {
                        sum += __half2float(halves[i]) * xs[i];
                    }
                    acc[c][r] = sum;
                }
            }
        }
    }
#pragma unroll
    for (int c = 0; c < Columns; ++c) {
        const int64_t column = first + c;
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
            if (r >= m) break;
            const float total = warp_sum(acc[c][r]);
            if (lane == 0 && column < n) {
                y[r * n + column] =
                    epilogue.apply(bias != nullptr ? total + bias[column] : total, r * n + column);
            }
        }
    }
}

template <int Columns, int Rows>
void launch_columns(const float* x, const __half* w, const float* bias, float* y, int64_t m,
                    int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    const int64_t warps = (n + Columns - 1) / Columns;
    const auto blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    // Through a pointer: the macro would split the template's argument list at its comma.
    const auto gemv_columns = &gemv_columns_kernel<Columns, Rows>;
    EARSHOT_LAUNCH(gemv_columns, blocks, kThreads, 0, stream)
    (x, w, bias, y, m, k, n, epilogue);
    EARSHOT_CHECK_LAUNCH();
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

void gemv_f16_columns(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                      int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    if (m < 1 || m > kMaxGemvRows || n == 0) return;
    if (k % kElementsPerLoad != 0 || !aligned16(x) || !aligned16(w)) {
        gemv_f16(x, w, bias, y, m, k, n, epilogue, stream);  // rows without 16-byte loads
        return;
    }
    const auto* wh = reinterpret_cast<const __half*>(w);
    const bool wide = n >= 4 * kTargetWarps;
    if (m == 1) {
        if (wide) return launch_columns<4, 1>(x, wh, bias, y, m, k, n, epilogue, stream);
        return launch_columns<2, 1>(x, wh, bias, y, m, k, n, epilogue, stream);
    }
    if (wide) return launch_columns<4, kMaxGemvRows>(x, wh, bias, y, m, k, n, epilogue, stream);
    launch_columns<2, kMaxGemvRows>(x, wh, bias, y, m, k, n, epilogue, stream);
}

}  // namespace earshot::backend::cuda::kernels
