// The fused GEMV (backend/cuda/fused_gemv.h): each block copies x [m, k] into shared memory and,
// when the step's LayerNorm was folded in, normalises it there with the same reductions as
// layer_norm_kernel (kernels_norm.cu: 256 threads, two passes), so the values the products read
// are bit for bit those the separate LayerNorm wrote. Then each warp owns two or four output
// columns of the linears laid end to end (q, k, v), with the weight loads of
// gemv_f16_columns (kernels_gemv_columns.cu): 16-byte loads, two chunks in flight; each column
// finishes with its own bias and epilogue and goes to an f32 output or, as f16, into a decoder
// cache at the position read from device memory (so a captured graph replays it at every pos).
// Block weights (q8_0, q5_0, q4_0, all linears of a group the same type) go through the block
// GEMVs' inner loop (gemv_blocks.cuh) on the same normalised x in shared memory.
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "backend/cuda/cuda_launch_rules.h"
#include "gemv_blocks.cuh"
#include "gemv_columns.cuh"
#include "kernels_step.h"
#include "launch.cuh"

#ifndef __CUDACC__
#include <vector>

namespace earshot::backend::cuda {
// For the emulator's dependent-launch check: the outputs a FusedGemv parameter writes.
inline void emulator_written_pointers(const FusedGemv& args, std::vector<void*>& written) {
    for (int l = 0; l < args.linear_count; ++l) {
        if (args.linears[l].y != nullptr) written.push_back(args.linears[l].y);
        if (args.linears[l].cache != nullptr) written.push_back(args.linears[l].cache);
    }
}
}  // namespace earshot::backend::cuda
#endif

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kWarpsPerBlock = kThreads / 32;

// The linear that global column `column` belongs to, and the column inside it.
__device__ inline int linear_of(const FusedGemv& args, int64_t& column) {
    int l = 0;
    while (l + 1 < args.linear_count && column >= args.linears[l].n) {
        column -= args.linears[l].n;
        ++l;
    }
    return l;
}

__device__ inline void store_column(const FusedLinear& linear, int64_t row, int64_t column,
                                    float value) {
    if (linear.bias != nullptr) value += linear.bias[column];
    if (linear.gelu) value = 0.5F * value * (1.0F + erff(value * 0.70710678118654752F));
    if (linear.residual != nullptr) value += linear.residual[row * linear.n + column];
    if (linear.y != nullptr) {
        linear.y[row * linear.n + column] = value;
        return;
    }
    const int64_t head = column / linear.dh;
    const int64_t at = ((row * linear.heads + head) * linear.positions + *linear.pos) * linear.dh +
                       column % linear.dh;
    reinterpret_cast<__half*>(linear.cache)[at] = __float2half_rn(value);
}

// The weights of f16 linears, as opposed to a block Format (gemv_blocks.cuh).
struct F16Weights {};

// Rows: 1 (a batch-1 step) or kMaxGemvRows (m rows at run time). Weights: F16Weights, or the
// block Format every linear of the group is stored in. A dependent launch: the warp's weight rows
// and its lane's first tile of them are found and loaded before the wait for the kernel that
// writes x (weights only, which no run changes).
template <class Weights, int Columns, int Rows>
__global__ void gemv_fused_kernel(FusedGemv args, int64_t total_columns) {
    EARSHOT_DYNAMIC_SHARED(float, xs);  // [m, k]
    EARSHOT_STATIC_SHARED(float, reduce, 32);
    const int64_t m = args.m;
    const int64_t k = args.k;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int64_t first = warp * Columns;
    constexpr bool kF16 = std::is_same_v<Weights, F16Weights>;
    using Row = std::conditional_t<kF16, const __half*, const uint8_t*>;
    using Tile = std::conditional_t<kF16, GemvTile<Columns>, BlockTile<Columns>>;
    Row rows[Columns];
    for (int c = 0; c < Columns; ++c) {
        // Columns past the end read the last one's weights (in bounds) and write nothing.
        int64_t column = first + c < total_columns ? first + c : total_columns - 1;
        const int l = linear_of(args, column);
        if constexpr (kF16) {
            rows[c] = reinterpret_cast<const __half*>(args.linears[l].w) + column * k;
        } else {
            rows[c] = reinterpret_cast<const uint8_t*>(args.linears[l].w) +
                      column * (k / kBlockValues * Weights::kBytes);
        }
    }
    Tile tile;
    if (first < total_columns) {
        if constexpr (kF16) {
            gemv_columns_first_tile(rows, k, lane, tile);
        } else {
            gemv_block_first_tile<Weights>(rows, k, lane, tile);
        }
    }
    wait_for_previous_kernel();  // x is the previous kernel's output
    let_next_kernel_start();
    for (int64_t i = threadIdx.x; i < m * k; i += blockDim.x) xs[i] = args.x[i];
    __syncthreads();
    if (args.norm_weight != nullptr) {
        for (int64_t r = 0; r < m; ++r) {
            float* row = xs + r * k;
            float sum = 0.0F;
            for (int64_t j = threadIdx.x; j < k; j += blockDim.x) sum += row[j];
            const float mean = block_sum(sum, reduce) / static_cast<float>(k);
            float squares = 0.0F;
            for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
                const float c = row[j] - mean;
                squares += c * c;
            }
            const float variance = block_sum(squares, reduce) / static_cast<float>(k);
            const float inv = 1.0F / sqrtf(variance + args.norm_eps);
            for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
                row[j] = (row[j] - mean) * inv * args.norm_weight[j] + args.norm_bias[j];
            }
        }
        __syncthreads();
    }
    if (first >= total_columns) return;  // the whole warp, after the block's last barrier
    float acc[Columns][Rows] = {};
    if constexpr (kF16) {
        gemv_columns_dots<Columns, Rows>(rows, xs, m, k, lane, tile, acc);
    } else {
        gemv_block_dots<Weights, Columns, Rows>(rows, xs, m, k, lane, tile, acc);
    }
#pragma unroll
    for (int c = 0; c < Columns; ++c) {
        int64_t column = first + c;
        const bool real = column < total_columns;
        const int l = real ? linear_of(args, column) : 0;
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
            if (r >= m) break;
            const float total = warp_sum(acc[c][r]);
            if (lane == 0 && real) store_column(args.linears[l], r, column, total);
        }
    }
}

template <class Weights, int Columns, int Rows>
void launch_fused(const FusedGemv& args, int64_t total_columns, cudaStream_t stream) {
    const int64_t warps = (total_columns + Columns - 1) / Columns;
    const auto blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    const auto shared = static_cast<size_t>(args.m * args.k * 4);  // the dynamic part
    const auto gemv_fused = &gemv_fused_kernel<Weights, Columns, Rows>;
    EARSHOT_LAUNCH_DEPENDENT(gemv_fused, blocks, kThreads, shared, stream)(args, total_columns);
    EARSHOT_CHECK_LAUNCH();
}

template <class Weights>
void launch_weights(const FusedGemv& args, int64_t total_columns, cudaStream_t stream) {
    const bool wide = total_columns >= 4 * kGemvTargetWarps;
    if (args.m == 1) {
        if (wide) {
            launch_fused<Weights, 4, 1>(args, total_columns, stream);
        } else {
            launch_fused<Weights, 2, 1>(args, total_columns, stream);
        }
    } else if (wide) {
        launch_fused<Weights, 4, kMaxGemvRows>(args, total_columns, stream);
    } else {
        launch_fused<Weights, 2, kMaxGemvRows>(args, total_columns, stream);
    }
}

}  // namespace

bool gemv_f16_fused(const FusedGemv& args, cudaStream_t stream) {
    if (!fused_gemv_fits(args.m, args.k) || args.linear_count < 1 ||
        args.linear_count > kMaxFusedLinears) {
        return false;
    }
    // Block weights: a type with a GEMV, whole blocks per row, 2-byte aligned rows.
    const bool blocks = args.block_type != 0;
    if (blocks && (gemv_block_bytes(args.block_type) == 0 || args.k % kBlockValues != 0)) {
        return false;
    }
    int64_t total_columns = 0;
    for (int l = 0; l < args.linear_count; ++l) {
        const FusedLinear& linear = args.linears[l];
        if (linear.n < 1 || reinterpret_cast<uintptr_t>(linear.w) % (blocks ? 2 : 16) != 0) {
            return false;
        }
        if (linear.y == nullptr && (linear.cache == nullptr || linear.pos == nullptr ||
                                    linear.dh < 1 || linear.heads * linear.dh != linear.n)) {
            return false;
        }
        total_columns += linear.n;
    }
    switch (args.block_type) {
        case 0:
            launch_weights<F16Weights>(args, total_columns, stream);
            return true;
        case kBlockTypeQ8_0:
            launch_weights<Q8_0>(args, total_columns, stream);
            return true;
        case kBlockTypeQ5_0:
            launch_weights<Q5_0>(args, total_columns, stream);
            return true;
        default:
            launch_weights<Q4_0>(args, total_columns, stream);
            return true;
    }
}

}  // namespace earshot::backend::cuda::kernels
