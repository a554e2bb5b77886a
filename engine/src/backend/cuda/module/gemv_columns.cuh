// The inner loop both multi-column GEMVs share (kernels_gemv_columns.cu, kernels_gemv_fused.cu):
// one warp's partial dot products of `Columns` f16 weight rows with `Rows` f32 rows of x, every
// lane keeping 2 x Columns independent 16-byte weight loads in flight before it reads the
// matching 8 elements of x once for all of its columns. x may be global or shared memory.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

inline constexpr int kGemvElementsPerLoad = 8;                    // f16 in 16 bytes
inline constexpr int64_t kGemvChunk = 32 * kGemvElementsPerLoad;  // one warp-wide load
inline constexpr int kGemvUnroll = 2;                             // chunks in flight per loop
// Four columns per warp once there are warps enough for every SM of a large GPU (132 on an
// H100/H200) to hold 16 of them; two below that, so small layers still fill the GPU.
inline constexpr int64_t kGemvTargetWarps = 132 * 16;

// acc[c][r] += this lane's share of rows[c] . x[r] (x [m, k], k % 8 == 0, 16-byte aligned);
// Rows is 1 or kMaxGemvRows (the rows past m are skipped at run time).
template <int Columns, int Rows>
__device__ inline void gemv_columns_dots(const __half* const (&rows)[Columns], const float* x,
                                         int64_t m, int64_t k, int lane,
                                         float (&acc)[Columns][Rows]) {
    int64_t j = static_cast<int64_t>(lane) * kGemvElementsPerLoad;
    // Both chunks of an iteration lie inside k: k % 8 == 0, so j + kChunk < k covers j + kChunk
    // + 7.
    for (; j < k; j += kGemvUnroll * kGemvChunk) {
        const int chunks = j + kGemvChunk < k ? kGemvUnroll : 1;
        uint4 raw[kGemvUnroll][Columns];
#pragma unroll
        for (int u = 0; u < kGemvUnroll; ++u) {
            if (u >= chunks) break;
#pragma unroll
            for (int c = 0; c < Columns; ++c) {
                raw[u][c] = *reinterpret_cast<const uint4*>(rows[c] + j + u * kGemvChunk);
            }
        }
#pragma unroll
        for (int u = 0; u < kGemvUnroll; ++u) {
            if (u >= chunks) break;
#pragma unroll
            for (int r = 0; r < Rows; ++r) {
                if (r >= m) break;
                const float* xr = x + r * k + j + u * kGemvChunk;
                const float4 lo = *reinterpret_cast<const float4*>(xr);
                const float4 hi = *reinterpret_cast<const float4*>(xr + 4);
                const float xs[kGemvElementsPerLoad] = {lo.x, lo.y, lo.z, lo.w,
                                                        hi.x, hi.y, hi.z, hi.w};
#pragma unroll
                for (int c = 0; c < Columns; ++c) {
                    const __half* halves = reinterpret_cast<const __half*>(&raw[u][c]);
                    float sum = acc[c][r];
                    for (int i = 0; i < kGemvElementsPerLoad; ++i) {
                        sum += __half2float(halves[i]) * xs[i];
                    }
                    acc[c][r] = sum;
                }
            }
        }
    }
}

// A warp's sums of acc written to y [m, n] at the columns first .. first + Columns - 1 that are
// below n, with the bias and the epilogue (lane 0 writes): the end of every multi-column GEMV.
template <int Columns, int Rows, class Epilogue>
__device__ inline void gemv_write_columns(float (&acc)[Columns][Rows], int64_t first, int64_t m,
                                          int64_t n, int lane, const float* bias,
                                          const Epilogue& epilogue, float* y) {
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

}  // namespace earshot::backend::cuda::kernels
