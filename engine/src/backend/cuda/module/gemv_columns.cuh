// The inner loop both multi-column GEMVs share (kernels_gemv_columns.cu, kernels_gemv_fused.cu):
// one warp's partial dot products of `Columns` f16 weight rows with `Rows` f32 rows of x, every
// lane keeping 2 x Columns independent 16-byte weight loads in flight before it reads the
// matching 8 elements of x once for all of its columns. x may be global or shared memory. The
// first tile of weights is loaded apart, so that a dependent launch issues it before its wait.
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

// One loop iteration's weights for a lane: the 16-byte chunks at j and j + kGemvChunk (the
// second only when it lies inside k) of each of the warp's `Columns` rows.
template <int Columns>
struct GemvTile {
    uint4 raw[kGemvUnroll][Columns];
    int chunks = 0;
};

// The tile of iteration j (k % 8 == 0: j + kChunk < k covers j + kChunk + 7).
template <int Columns>
__device__ inline void gemv_columns_load(const __half* const (&rows)[Columns], int64_t k, int64_t j,
                                         GemvTile<Columns>& tile) {
    tile.chunks = j + kGemvChunk < k ? kGemvUnroll : 1;
#pragma unroll
    for (int u = 0; u < kGemvUnroll; ++u) {
        if (u >= tile.chunks) break;
#pragma unroll
        for (int c = 0; c < Columns; ++c) {
            tile.raw[u][c] = *reinterpret_cast<const uint4*>(rows[c] + j + u * kGemvChunk);
        }
    }
}

// The first tile a lane reads (weights only, so a dependent launch loads it before
// wait_for_previous_kernel(), while the kernel before it drains); empty when j >= k.
template <int Columns>
__device__ inline void gemv_columns_first_tile(const __half* const (&rows)[Columns], int64_t k,
                                               int lane, GemvTile<Columns>& tile) {
    const int64_t j = static_cast<int64_t>(lane) * kGemvElementsPerLoad;
    if (j < k) gemv_columns_load(rows, k, j, tile);
}

// acc[c][r] += the tile of iteration j times the matching 8 elements of each row of x.
template <int Columns, int Rows>
__device__ inline void gemv_columns_accumulate(const GemvTile<Columns>& tile, const float* x,
                                               int64_t m, int64_t k, int64_t j,
                                               float (&acc)[Columns][Rows]) {
#pragma unroll
    for (int u = 0; u < kGemvUnroll; ++u) {
        if (u >= tile.chunks) break;
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
            if (r >= m) break;
            const float* xr = x + r * k + j + u * kGemvChunk;
            const float4 lo = *reinterpret_cast<const float4*>(xr);
            const float4 hi = *reinterpret_cast<const float4*>(xr + 4);
            const float xs[kGemvElementsPerLoad] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
            for (int c = 0; c < Columns; ++c) {
                const __half* halves = reinterpret_cast<const __half*>(&tile.raw[u][c]);
                float sum = acc[c][r];
                for (int i = 0; i < kGemvElementsPerLoad; ++i) {
                    sum += __half2float(halves[i]) * xs[i];
                }
                acc[c][r] = sum;
            }
        }
    }
}

// acc[c][r] += this lane's share of rows[c] . x[r] (x [m, k], k % 8 == 0, 16-byte aligned);
// Rows is 1 or kMaxGemvRows (the rows past m are skipped at run time). `first` is the lane's
// first tile (gemv_columns_first_tile), loaded before; the sums are added in the same order
// whether it was loaded early or not.
template <int Columns, int Rows>
__device__ inline void gemv_columns_dots(const __half* const (&rows)[Columns], const float* x,
                                         int64_t m, int64_t k, int lane,
                                         const GemvTile<Columns>& first,
                                         float (&acc)[Columns][Rows]) {
    int64_t j = static_cast<int64_t>(lane) * kGemvElementsPerLoad;
    if (j >= k) return;
    gemv_columns_accumulate(first, x, m, k, j, acc);
    for (j += kGemvUnroll * kGemvChunk; j < k; j += kGemvUnroll * kGemvChunk) {
        GemvTile<Columns> tile;
        gemv_columns_load(rows, k, j, tile);
        gemv_columns_accumulate(tile, x, m, k, j, acc);
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
