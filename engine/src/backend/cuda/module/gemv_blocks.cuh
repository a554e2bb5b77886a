// The device side of the quantized weight blocks a GEMV reads directly (q8_0, q5_0, q4_0: the
// one device-side copy of ggml-common.h's layouts; the engine's is checkpoint/ggml_blocks.h, and
// the kernel tests hold the two to the same sizes), and the inner loop of the block GEMVs
// (kernels_gemv_blocks.cu, and kernels_gemv_fused.cu for block weights).
//
// The activations are quantized to 8 bits per block of 32 inside the loop exactly as the CPU
// backend's quantize_q8_activations does (d = amax / 127, levels x * (127 / amax) rounded to
// nearest even), so each block's product is the CPU's exact integer dot of the levels times the
// two scales; only the order in which the f32 block terms are added differs. Why 8-bit and not
// f32 activations: the decoder step then computes what the CPU computes (logits agree to the
// rounding of that sum, not to the 8-bit rounding of x), and each weight is consumed as the
// integer level it is stored as (no per-value float conversion and multiply by the scale).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels_step.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

__device__ inline uint32_t load_u16(const uint8_t* p) {  // 2-byte aligned
    return *reinterpret_cast<const uint16_t*>(p);
}

__device__ inline float load_scale(const uint8_t* block) {  // the f16 d at byte 0
    return __half2float(*reinterpret_cast<const __half*>(block));
}

// Each unpacks quarter `part` (values 8 part .. 8 part + 7) of one block into its signed levels
// and returns the block's scale d (value = d x level).
struct Q8_0 {  // [34 bytes]: d | qs[32] int8
    static constexpr int32_t kType = kBlockTypeQ8_0;
    static constexpr int64_t kBytes = 34;
    __device__ static float unpack(const uint8_t* block, int part, int (&levels)[8]) {
        const uint8_t* qs = block + 2 + 8 * part;
        for (int i = 0; i < 8; i += 2) {
            const uint32_t two = load_u16(qs + i);
            levels[i] = static_cast<int8_t>(two & 0xffU);
            levels[i + 1] = static_cast<int8_t>(two >> 8);
        }
        return load_scale(block);
    }
};

// Values j < 16 are the low nibbles of qs[j], j >= 16 the high nibbles of qs[j - 16]: quarter p
// reads bytes 8 (p & 1) .. + 7 and shifts by 4 (p >> 1).
struct Q4_0 {  // [18 bytes]: d | qs[16]; level nibble - 8
    static constexpr int32_t kType = kBlockTypeQ4_0;
    static constexpr int64_t kBytes = 18;
    __device__ static float unpack(const uint8_t* block, int part, int (&levels)[8]) {
        const uint8_t* qs = block + 2 + 8 * (part & 1);
        const int shift = 4 * (part >> 1);
        for (int i = 0; i < 8; i += 2) {
            const uint32_t two = load_u16(qs + i);
            levels[i] = static_cast<int>((two >> shift) & 0x0fU) - 8;
            levels[i + 1] = static_cast<int>((two >> (8 + shift)) & 0x0fU) - 8;
        }
        return load_scale(block);
    }
};

struct Q5_0 {  // [22 bytes]: d | qh[4] | qs[16]; level (nibble | bit j of qh << 4) - 16
    static constexpr int32_t kType = kBlockTypeQ5_0;
    static constexpr int64_t kBytes = 22;
    __device__ static float unpack(const uint8_t* block, int part, int (&levels)[8]) {
        const uint32_t qh = (load_u16(block + 2) | load_u16(block + 4) << 16) >> (8 * part);
        const uint8_t* qs = block + 6 + 8 * (part & 1);
        const int shift = 4 * (part >> 1);
        for (int i = 0; i < 8; i += 2) {
            const uint32_t two = load_u16(qs + i);
            levels[i] = static_cast<int>(((two >> shift) & 0x0fU) | ((qh >> i) & 1U) << 4) - 16;
            levels[i + 1] =
                static_cast<int>(((two >> (8 + shift)) & 0x0fU) | ((qh >> (i + 1)) & 1U) << 4) - 16;
        }
        return load_scale(block);
    }
};

// One loop iteration's weights for a lane: the quarter it reads of block `first + lane / 4` of
// each of the warp's `Columns` rows, as signed levels and the block's scale (zeros past the
// row's last block).
template <int Columns>
struct BlockTile {
    int levels[Columns][8] = {};
    float dw[Columns] = {};
    bool active = false;
};

// The tile of the iteration starting at block `first` of rows of `blocks` blocks.
template <class Format, int Columns>
__device__ inline void gemv_block_load(const uint8_t* const (&rows)[Columns], int64_t blocks,
                                       int64_t first, int lane, BlockTile<Columns>& tile) {
    const int64_t b = first + (lane >> 2);
    tile.active = b < blocks;
#pragma unroll
    for (int c = 0; c < Columns; ++c) {
        tile.dw[c] = tile.active
                         ? Format::unpack(rows[c] + b * Format::kBytes, lane & 3, tile.levels[c])
                         : 0.0F;
    }
}

// acc[c][r] += the tile of the iteration at block `first` times the lane's 8 elements of each
// row of x, quantized per block. Every lane of the warp calls it (the amax is exchanged).
template <class Format, int Columns, int Rows>
__device__ inline void gemv_block_accumulate(const BlockTile<Columns>& tile, const float* x,
                                             int64_t m, int64_t k, int64_t first, int lane,
                                             float (&acc)[Columns][Rows]) {
    const int part = lane & 3;
    const int64_t b = first + (lane >> 2);
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
        if (r >= m) break;
        float xs[8] = {};
        float amax = 0.0F;
        if (tile.active) {
            const float* xr = x + r * k + b * kBlockValues + 8 * part;
            for (int i = 0; i < 8; ++i) {
                xs[i] = xr[i];
                const float a = fabsf(xs[i]);
                amax = a > amax ? a : amax;
            }
        }
        // The block's amax over its four lanes (the max is exact in any order).
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffU, amax, 1));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffU, amax, 2));
        if (!tile.active) continue;
        const float dx = amax / 127.0F;
        const float inverse = amax > 0.0F ? 127.0F / amax : 0.0F;
        int q[8];
        for (int i = 0; i < 8; ++i) q[i] = static_cast<int>(rintf(xs[i] * inverse));
#pragma unroll
        for (int c = 0; c < Columns; ++c) {
            int dot = 0;
            for (int i = 0; i < 8; ++i) dot += tile.levels[c][i] * q[i];
            acc[c][r] += tile.dw[c] * dx * static_cast<float>(dot);
        }
    }
}

// The first tile a lane reads (weights only: a dependent launch loads it before its wait).
template <class Format, int Columns>
__device__ inline void gemv_block_first_tile(const uint8_t* const (&rows)[Columns], int64_t k,
                                             int lane, BlockTile<Columns>& tile) {
    gemv_block_load<Format>(rows, k / kBlockValues, 0, lane, tile);
}

// acc[c][r] += this lane's share of rows[c] . x[r]: rows[c] are k / 32 blocks of Format, x
// [m, k] f32 (global or shared memory, any alignment), k % 32 == 0. Four lanes share a block
// (lane & 3 its quarter), a warp covers 8 blocks per iteration; every lane runs every iteration
// (the amax of a block is exchanged with shuffles). Rows is 1 or kMaxGemvRows (rows past m
// skipped at run time). `first` is the lane's first tile (gemv_block_first_tile), loaded before.
template <class Format, int Columns, int Rows>
__device__ inline void gemv_block_dots(const uint8_t* const (&rows)[Columns], const float* x,
                                       int64_t m, int64_t k, int lane,
                                       const BlockTile<Columns>& first,
                                       float (&acc)[Columns][Rows]) {
    const int64_t blocks = k / kBlockValues;
    if (blocks == 0) return;
    gemv_block_accumulate<Format>(first, x, m, k, 0, lane, acc);
    for (int64_t at = 8; at < blocks; at += 8) {
        BlockTile<Columns> tile;
        gemv_block_load<Format>(rows, blocks, at, lane, tile);
        gemv_block_accumulate<Format>(tile, x, m, k, at, lane, acc);
    }
}

}  // namespace earshot::backend::cuda::kernels
