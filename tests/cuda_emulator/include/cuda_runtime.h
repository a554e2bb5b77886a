// The CPU emulation's kernel side: __global__ functions are plain functions, every block runs in
// turn, and the threads of a block run as coroutines that switch at __syncthreads() and warp
// shuffles, so block reductions and shared memory behave as on a GPU.
#pragma once

#include <cmath>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "cuda_runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// Static shared memory is declared with EARSHOT_STATIC_SHARED (launch.cuh), which tells the
// emulator its size; a plain __shared__ would escape the shared-memory limit check.
#define __shared__ static_assert(false, "declare shared memory with EARSHOT_STATIC_SHARED");

namespace earshot::cuda_emulator {
// The address of a 16-byte vector load or store, checked for 16-byte alignment (a misaligned
// one is a fault on a GPU: reported, naming the kernel, and the launch fails). Defined in the
// emulator, out of line, so the compiler assumes nothing of the returned address.
const void* vector_load_address(const void* address, size_t bytes);
void* vector_store_address(void* address, size_t bytes);
}  // namespace earshot::cuda_emulator

// CUDA's 16-byte vectors: a copy from or to memory through them is a checked vector access.
template <typename T>
struct alignas(16) EmulatedVector4 {
    T x, y, z, w;
    EmulatedVector4() = default;
    EmulatedVector4(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    EmulatedVector4(const EmulatedVector4& other) {
        std::memcpy(static_cast<void*>(this),
                    ::earshot::cuda_emulator::vector_load_address(&other, sizeof(other)),
                    sizeof(other));
    }
    EmulatedVector4& operator=(const EmulatedVector4& other) {
        std::memcpy(::earshot::cuda_emulator::vector_store_address(this, sizeof(other)), &other,
                    sizeof(other));
        return *this;
    }
};
using uint4 = EmulatedVector4<unsigned>;
using int4 = EmulatedVector4<int>;
using float4 = EmulatedVector4<float>;

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
// A static shared array of the running kernel (EARSHOT_STATIC_SHARED): counted against the
// shared-memory limit and, at its launch's first use, filled with NaN bytes.
void static_shared(void* array, size_t bytes);
// A wmma load or store: `address` 32-byte aligned and `ldm` a multiple of 16 bytes, else a fault.
void check_wmma_access(const void* address, unsigned ldm, size_t element_bytes);

// One kernel launch as the emulator runs it.
struct LaunchInfo {
    dim3 grid, block;
    size_t shared_bytes = 0;
    const void* kernel = nullptr;  // the function, for cudaFuncSetAttribute's opt-in
    const char* name = "";         // the kernel's name in messages
    std::vector<void*> written;    // the pointer parameters it may write (not to const)
    // Pointers it may write held in struct parameters (emulator_written_pointers, found by
    // argument-dependent lookup for the struct's type), for the dependent-launch check.
    std::vector<void*> written_inside;
    // Launched with programmatic stream serialization (EARSHOT_LAUNCH_DEPENDENT): it may start
    // before the previous kernel ends, so every block must call cudaGridDependencySynchronize()
    // before touching what that kernel writes. The emulator runs it with the previous kernel's
    // written allocations unwritten (NaN bytes) until the first block waits; a block that never
    // waits, a write into them before the wait, or letting the next kernel start before waiting
    // is reported.
    bool dependent = false;
    cudaStream_t stream = nullptr;  // the dependent-launch check follows each stream's order
};
// Runs `body` for every thread of every block; an error sets cudaGetLastError(). With
// EARSHOT_CUDA_EMULATOR_CHECK_BLOCK_ORDER=1 a grid of several blocks runs twice, in order and
// then in reverse order from the same memory, and any difference in what it wrote is reported
// as a race between blocks; with =sampled, only the first launches of each kernel and shape and
// then one in 64 do (emulated_threads.cpp).
void run_grid(const LaunchInfo& info, const std::function<void()>& body);

template <typename T>
void note_written(LaunchInfo& info, const T& value) {
    if constexpr (std::is_pointer_v<T> && !std::is_const_v<std::remove_pointer_t<T>>) {
        info.written.push_back(const_cast<void*>(static_cast<const volatile void*>(value)));
    } else if constexpr (requires { emulator_written_pointers(value, info.written_inside); }) {
        emulator_written_pointers(value, info.written_inside);
    }
}

// The dependent-launch calls of a kernel's thread (cudaGridDependencySynchronize,
// cudaTriggerProgrammaticLaunchCompletion).
void grid_dependency_synchronize();
void trigger_dependent_launches();

// Runs `work` on `stream` now or records it (a capturing stream); defined in the emulator.
void enqueue_work(cudaStream_t stream, std::function<void()> work);

template <typename... Params>
struct Launch {
    void (*kernel)(Params...);
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
    const char* name;
    bool dependent = false;
    template <typename... Args>
    void operator()(Args&&... args) const {
        const std::tuple<Params...> values(static_cast<Params>(args)...);
        LaunchInfo info{grid,  block, shared_bytes, reinterpret_cast<const void*>(kernel),
                        name,  {},    {},           dependent,
                        stream};
        std::apply([&](const auto&... value) { (note_written(info, value), ...); }, values);
        auto kernel_ = kernel;
        enqueue_work(stream, [=] { run_grid(info, [&] { std::apply(kernel_, values); }); });
    }
};

template <typename... Params>
Launch<Params...> launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                         cudaStream_t stream, const char* name, bool dependent = false) {
    return {kernel, grid, block, shared_bytes, stream, name, dependent};
}

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
cudaError_t set_max_dynamic_shared(const void* kernel, int bytes);

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

// Atomics and fences: blocks run one after another and a block's threads switch only at barriers
// and shuffles, so a plain read-modify-write is atomic here and a fence has nothing to order.
inline unsigned atomicAdd(unsigned* address, unsigned value) {
    const unsigned before = *address;
    *address = before + value;
    return before;
}
inline void __threadfence() {}

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

template <typename T>
cudaError_t cudaFuncSetAttribute(T* entry, cudaFuncAttribute attribute, int value) {
    if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaErrorInvalidValue;
    return ::earshot::cuda_emulator::set_max_dynamic_shared(reinterpret_cast<const void*>(entry),
                                                            value);
}

template <typename T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* /*entry*/) {
    attributes->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}
