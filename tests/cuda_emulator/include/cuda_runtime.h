// The CPU emulation's kernel side: __global__ functions are plain functions, every block runs in
// turn, and the threads of a block run as coroutines that switch at __syncthreads() and warp
// shuffles, so block reductions and shared memory behave as on a GPU.
#pragma once

#include <cmath>
#include <functional>
#include <tuple>

#include "cuda_runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// Blocks run one after another, so one static array per kernel is the block's shared memory.
#define __shared__ static

struct uint4 {
    unsigned x, y, z, w;
};

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace earshot::cuda_emulator {

struct ThreadState {
    dim3 thread_idx, block_idx, block_dim, grid_dim;
};

const ThreadState& current();
void sync_block();
void sync_warp();  // __syncwarp(): the threads of the running thread's warp
float shfl_xor(float value, int lane_mask);
// A warp-wide sum or max with the additions of a shuffle butterfly, in one exchange.
float warp_reduce(float value, bool take_max);
void* dynamic_shared();
// Runs `body` for every thread of every block; an error sets cudaGetLastError().
void run_grid(dim3 grid, dim3 block, size_t shared_bytes, const std::function<void()>& body);

// Runs `work` on `stream` now or records it (a capturing stream); defined in the emulator.
void enqueue_work(cudaStream_t stream, std::function<void()> work);

template <typename... Params>
struct Launch {
    void (*kernel)(Params...);
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
    template <typename... Args>
    void operator()(Args&&... args) const {
        const std::tuple<Params...> values(static_cast<Params>(args)...);
        auto kernel_ = kernel;
        auto grid_ = grid;
        auto block_ = block;
        auto shared_ = shared_bytes;
        enqueue_work(stream, [=] {
            run_grid(grid_, block_, shared_, [&] { std::apply(kernel_, values); });
        });
    }
};

template <typename... Params>
Launch<Params...> launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                         cudaStream_t stream) {
    return {kernel, grid, block, shared_bytes, stream};
}

}  // namespace earshot::cuda_emulator

#define threadIdx (::earshot::cuda_emulator::current().thread_idx)
#define blockIdx (::earshot::cuda_emulator::current().block_idx)
#define blockDim (::earshot::cuda_emulator::current().block_dim)
#define gridDim (::earshot::cuda_emulator::current().grid_dim)
#define __syncthreads() ::earshot::cuda_emulator::sync_block()
#define __syncwarp(...) ::earshot::cuda_emulator::sync_warp()

inline float __shfl_xor_sync(unsigned /*mask*/, float value, int lane_mask) {
    return ::earshot::cuda_emulator::shfl_xor(value, lane_mask);
}

template <typename T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* /*entry*/) {
    attributes->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}
