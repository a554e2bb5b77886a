// The GEMVs over quantized weight blocks (q8_0, q5_0, q4_0; gemv_blocks.cuh): a decoder step's
// linears reading 8.5, 5.5 or 4.5 bits per weight instead of 16. Each warp owns two or four output
// columns as gemv_f16_columns does; bias and epilogue in the same pass. And the decoding of blocks
// to f16 for the GEMMs of many rows (a long prefill) on the same weights.
#include <cuda_fp16.h>

#include <cstdint>

#include "gemv_blocks.cuh"
#include "gemv_columns.cuh"
#include "kernels_step.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kWarpsPerBlock = kThreads / 32;

// A dependent launch in a decoder step: the lane's first blocks of weights are unpacked before the
// wait for the kernel that writes x.
template <class Format, int Columns, int Rows>
__global__ void gemv_blocks_kernel(const float* x, const uint8_t* w, const float* bias, float* y,
                                   int64_t m, int64_t k, int64_t n, Epilogue epilogue) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int64_t first = warp * Columns;
    const int64_t row_bytes = k / kBlockValues * Format::kBytes;
    const uint8_t* rows[Columns];
    for (int c = 0; c < Columns; ++c) {
        // Columns past n read the last one's weights (in bounds) and write nothing.
        rows[c] = w + (first + c < n ? first + c : n - 1) * row_bytes;
    }
    BlockTile<Columns> tile;
    if (first < n) gemv_block_first_tile<Format>(rows, k, lane, tile);
    wait_for_previous_kernel();  // x is the previous kernel's output
    let_next_kernel_start();
    if (first >= n) return;  // the whole warp
    float acc[Columns][Rows] = {};
    gemv_block_dots<Format, Columns, Rows>(rows, x, m, k, lane, tile, acc);
    gemv_write_columns(acc, first, m, n, lane, bias, epilogue, y);
}

template <class Format, int Columns, int Rows>
void launch_blocks(const float* x, const uint8_t* w, const float* bias, float* y, int64_t m,
                   int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    const int64_t warps = (n + Columns - 1) / Columns;
    const auto blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    const auto gemv = &gemv_blocks_kernel<Format, Columns, Rows>;
    EARSHOT_LAUNCH_DEPENDENT(gemv, blocks, kThreads, 0, stream)(x, w, bias, y, m, k, n, epilogue);
    EARSHOT_CHECK_LAUNCH();
}

template <class Format>
void launch_format(const float* x, const uint8_t* w, const float* bias, float* y, int64_t m,
                   int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    const bool wide = n >= 4 * kGemvTargetWarps;
    if (m == 1) {
        if (wide) return launch_blocks<Format, 4, 1>(x, w, bias, y, m, k, n, epilogue, stream);
        return launch_blocks<Format, 2, 1>(x, w, bias, y, m, k, n, epilogue, stream);
    }
    if (wide) {
        return launch_blocks<Format, 4, kMaxGemvRows>(x, w, bias, y, m, k, n, epilogue, stream);
    }
    launch_blocks<Format, 2, kMaxGemvRows>(x, w, bias, y, m, k, n, epilogue, stream);
}

// One thread per (block, quarter): 8 values of the block to f16.
template <class Format>
__global__ void dequantize_kernel(const uint8_t* blocks, __half* y, int64_t n_blocks) {
    wait_for_previous_kernel();  // y may be what the previous kernel reads
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, n_blocks * 4) {
        const int64_t b = i / 4;
        const int part = static_cast<int>(i % 4);
        int levels[8];
        const float d = Format::unpack(blocks + b * Format::kBytes, part, levels);
        __half* out = y + b * kBlockValues + 8 * part;
        for (int j = 0; j < 8; ++j) out[j] = __float2half_rn(d * static_cast<float>(levels[j]));
    }
}

template <class Format>
void launch_dequantize(const void* blocks, uint16_t* y, int64_t n_blocks, cudaStream_t stream) {
    const auto dequantize = &dequantize_kernel<Format>;
    EARSHOT_LAUNCH_DEPENDENT(dequantize, grid_for(n_blocks * 4), kThreads, 0, stream)
    (static_cast<const uint8_t*>(blocks), reinterpret_cast<__half*>(y), n_blocks);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace

bool gemv_blocks(const float* x, const void* w, int32_t block_type, const float* bias, float* y,
                 int64_t m, int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    if (gemv_block_bytes(block_type) == 0 || k % kBlockValues != 0 ||
        reinterpret_cast<uintptr_t>(w) % 2 != 0) {
        return false;
    }
    if (m < 1 || m > kMaxGemvRows || n == 0) return true;  // nothing to compute
    const auto* bytes = static_cast<const uint8_t*>(w);
    switch (block_type) {
        case kBlockTypeQ8_0:
            launch_format<Q8_0>(x, bytes, bias, y, m, k, n, epilogue, stream);
            return true;
        case kBlockTypeQ5_0:
            launch_format<Q5_0>(x, bytes, bias, y, m, k, n, epilogue, stream);
            return true;
        default:
            launch_format<Q4_0>(x, bytes, bias, y, m, k, n, epilogue, stream);
            return true;
    }
}

bool dequantize_blocks_f16(const void* blocks, int32_t block_type, uint16_t* y, int64_t n_blocks,
                           cudaStream_t stream) {
    if (gemv_block_bytes(block_type) == 0 || reinterpret_cast<uintptr_t>(blocks) % 2 != 0) {
        return false;
    }
    if (n_blocks == 0) return true;
    switch (block_type) {
        case kBlockTypeQ8_0:
            launch_dequantize<Q8_0>(blocks, y, n_blocks, stream);
            return true;
        case kBlockTypeQ5_0:
            launch_dequantize<Q5_0>(blocks, y, n_blocks, stream);
            return true;
        default:
            launch_dequantize<Q4_0>(blocks, y, n_blocks, stream);
            return true;
    }
}

}  // namespace earshot::backend::cuda::kernels
