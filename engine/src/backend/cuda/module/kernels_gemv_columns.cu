// A linear of a few rows at memory speed (a decoder step): each warp owns 2 or 4 output columns,
// and every lane keeps 2 x Columns independent 16-byte weight loads in flight before it reads the
// matching 8 elements of x once into registers for all of its columns. f32 activations and
// accumulation, bias and epilogue in the same pass, as gemv_f16 (kernels_gemv.cu), which stays
// for shapes without 16-byte rows and as the kernel to compare against.
#include <cuda_fp16.h>

#include <cstdint>

#include "gemv_columns.cuh"
#include "kernels_step.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kWarpsPerBlock = kThreads / 32;

// Rows: 1 (a batch-1 step, no row loop at run time) or kMaxGemvRows (m rows, m <= kMaxGemvRows).
// A dependent launch: the lane's first weight tile is loaded before the wait for the kernel that
// writes x (weights never change during a run).
template <int Columns, int Rows>
__global__ void gemv_columns_kernel(const float* x, const __half* w, const float* bias, float* y,
                                    int64_t m, int64_t k, int64_t n, Epilogue epilogue) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int64_t first = warp * Columns;
    const __half* rows[Columns];
    for (int c = 0; c < Columns; ++c) {
        // Columns past n read the last one's weights (in bounds) and write nothing.
        rows[c] = w + (first + c < n ? first + c : n - 1) * k;
    }
    GemvTile<Columns> tile;
    if (first < n) gemv_columns_first_tile(rows, k, lane, tile);
    wait_for_previous_kernel();  // x is the previous kernel's output
    let_next_kernel_start();
    if (first >= n) return;  // the whole warp
    float acc[Columns][Rows] = {};
    gemv_columns_dots<Columns, Rows>(rows, x, m, k, lane, tile, acc);
    gemv_write_columns(acc, first, m, n, lane, bias, epilogue, y);
}

template <int Columns, int Rows>
void launch_columns(const float* x, const __half* w, const float* bias, float* y, int64_t m,
                    int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    const int64_t warps = (n + Columns - 1) / Columns;
    const auto blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
    // Through a pointer: the macro would split the template's argument list at its comma.
    const auto gemv_columns = &gemv_columns_kernel<Columns, Rows>;
    EARSHOT_LAUNCH_DEPENDENT(gemv_columns, blocks, kThreads, 0, stream)
    (x, w, bias, y, m, k, n, epilogue);
    EARSHOT_CHECK_LAUNCH();
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

void gemv_f16_columns(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                      int64_t k, int64_t n, const Epilogue& epilogue, cudaStream_t stream) {
    if (m < 1 || m > kMaxGemvRows || n == 0) return;
    if (k % kGemvElementsPerLoad != 0 || !aligned16(x) || !aligned16(w)) {
        gemv_f16(x, w, bias, y, m, k, n, epilogue, stream);  // rows without 16-byte loads
        return;
    }
    const auto* wh = reinterpret_cast<const __half*>(w);
    const bool wide = n >= 4 * kGemvTargetWarps;
    if (m == 1) {
        if (wide) return launch_columns<4, 1>(x, wh, bias, y, m, k, n, epilogue, stream);
        return launch_columns<2, 1>(x, wh, bias, y, m, k, n, epilogue, stream);
    }
    if (wide) return launch_columns<4, kMaxGemvRows>(x, wh, bias, y, m, k, n, epilogue, stream);
    launch_columns<2, kMaxGemvRows>(x, wh, bias, y, m, k, n, epilogue, stream);
}

}  // namespace earshot::backend::cuda::kernels
