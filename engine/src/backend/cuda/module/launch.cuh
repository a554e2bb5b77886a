// Launch helpers shared by the kernel files: grid sizes for grid-stride loops, the launch check,
// and block-wide reductions (warp shuffles, then one value per warp in shared memory).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.h"
#include "dependent_launches.h"

namespace earshot::backend::cuda::kernels {

inline constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n items (at least one, at most 65535 * 32).
inline unsigned grid_for(int64_t n) {
    const int64_t blocks = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, int64_t{65535} * 32));
}

// Throws CudaError when the last launch failed (no synchronisation).
#define EARSHOT_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

// Launches and shared memory (static arrays declared with EARSHOT_STATIC_SHARED). nvcc: the CUDA
// syntax. Any other compiler: the CPU emulation of the CUDA runtime that the tests build the module
// against (a test double that runs every thread of a block as a coroutine; see
// tests/cuda_emulator).
#ifdef __CUDACC__
#define EARSHOT_LAUNCH(kernel, grid, block, shared_bytes, stream) \
    kernel<<<(grid), (block), (shared_bytes), (stream)>>>
#define EARSHOT_DYNAMIC_SHARED(type, name)   \
    extern __shared__ type name##_storage[]; \
    type* name = name##_storage
#define EARSHOT_STATIC_SHARED(type, name, count) __shared__ type name[count]
#else
#define EARSHOT_LAUNCH(kernel, grid, block, shared_bytes, stream) \
    ::earshot::cuda_emulator::launch(kernel, (grid), (block), (shared_bytes), (stream), #kernel)
#define EARSHOT_DYNAMIC_SHARED(type, name) \
    type* name = static_cast<type*>(::earshot::cuda_emulator::dynamic_shared())
// Blocks run one after another, so one static array per kernel is the block's shared memory;
// the emulator counts its size against the launch's shared-memory limit.
#define EARSHOT_STATIC_SHARED(type, name, count) \
    static type name[count];                     \
    ::earshot::cuda_emulator::static_shared(name, sizeof(name))
#endif

// Programmatic dependent launch (compute capability 9.0; issue 30): a decoder step's kernels may
// start while the kernel before them finishes, when launched with EARSHOT_LAUNCH_DEPENDENT while
// this thread's DependentLaunches scope allows it (else it is EARSHOT_LAUNCH; the module allows
// it around a decoder step's launches and the token choice after them, so the same kernels run
// plainly in the encoder, listen and prefill). Such a kernel calls wait_for_previous_kernel() in
// every block before it reads or writes any memory a kernel before it may touch (the previous
// kernel's writes are visible only after it returns, which waits for that kernel's completion and
// memory flush); only weights, which no run writes, may be loaded before it (the GEMVs load their
// first tile so). Every kernel a step launches then calls let_next_kernel_start() right after its
// wait: the trigger only lets the next kernel be scheduled, and that kernel's own wait still
// waits for this whole grid to complete. DependentLaunches: dependent_launches.h.
#ifdef __CUDACC__
// cudaLaunchKernelEx with cudaLaunchAttributeProgrammaticStreamSerialization when allowed.
template <typename... Params>
struct DependentLaunch {
    void (*kernel)(Params...);
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
    template <typename... Args>
    void operator()(Args&&... args) const {
        cudaLaunchAttribute attribute{};
        attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute.val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config{};
        config.gridDim = grid;
        config.blockDim = block;
        config.dynamicSmemBytes = shared_bytes;
        config.stream = stream;
        config.attrs = &attribute;
        config.numAttrs = dependent_launches_allowed() ? 1 : 0;
        CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
    }
};
template <typename... Params>
DependentLaunch<Params...> dependent_launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                                            size_t shared_bytes, cudaStream_t stream) {
    return {kernel, grid, block, shared_bytes, stream};
}
#define EARSHOT_LAUNCH_DEPENDENT(kernel, grid, block, shared_bytes, stream)                      \
    ::earshot::backend::cuda::kernels::dependent_launch(kernel, (grid), (block), (shared_bytes), \
                                                        (stream))

__device__ inline void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}
__device__ inline void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}
#else
// The emulation checks the waits (see tests/cuda_emulator).
#define EARSHOT_LAUNCH_DEPENDENT(kernel, grid, block, shared_bytes, stream) \
    ::earshot::cuda_emulator::launch(                                       \
        kernel, (grid), (block), (shared_bytes), (stream), #kernel,         \
        ::earshot::backend::cuda::kernels::dependent_launches_allowed())
inline void wait_for_previous_kernel() { ::earshot::cuda_emulator::grid_dependency_synchronize(); }
inline void let_next_kernel_start() { ::earshot::cuda_emulator::trigger_dependent_launches(); }
#endif

#define EARSHOT_GRID_STRIDE(i, n)                                                          \
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)

#ifdef __CUDACC__
__device__ inline float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffU, v, offset);
    return v;
}

__device__ inline float warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffU, v, offset));
    }
    return v;
}
#else
// The emulation combines the same butterfly in one exchange instead of five.
inline float warp_sum(float v) { return ::earshot::cuda_emulator::warp_reduce(v, false); }
inline float warp_max(float v) { return ::earshot::cuda_emulator::warp_reduce(v, true); }
#endif

// The sum (or max) of `v` over the block, returned to every thread. blockDim.x is a multiple of
// 32; `shared` holds 32 floats. Every thread of the block must call it.
__device__ inline float block_sum(float v, float* shared) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    v = warp_sum(v);
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int warps = static_cast<int>(blockDim.x) >> 5;
    if (warp == 0) {
        float w = lane < warps ? shared[lane] : 0.0F;
        w = warp_sum(w);
        if (lane == 0) shared[0] = w;
    }
    __syncthreads();
    const float total = shared[0];
    __syncthreads();  // `shared` may be reused right after
    return total;
}

__device__ inline float block_max(float v, float* shared) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    v = warp_max(v);
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int warps = static_cast<int>(blockDim.x) >> 5;
    if (warp == 0) {
        float w = lane < warps ? shared[lane] : -INFINITY;
        w = warp_max(w);
        if (lane == 0) shared[0] = w;
    }
    __syncthreads();
    const float total = shared[0];
    __syncthreads();
    return total;
}

}  // namespace earshot::backend::cuda::kernels
