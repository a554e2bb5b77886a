// Deliberately broken kernels (and their correct twins) that the emulator's checks must catch:
// a read of memory nobody wrote, misaligned 16-byte and wmma accesses, shared memory over the
// limit without opting in, blocks that race, and dependent launches that do not wait for the
// kernel before them or load its output before the wait. Built only into the emulated module; the
// tests run them by name through earshot_cuda_emulator_probe.
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <vector>

#include "launch.cuh"

namespace earshot::cuda_emulator::probes {

namespace {

using backend::cuda::kernels::kThreads;

// y [1] = the sum of x [0, n) (n + 1 when `past_the_end`: one element more than was written).
__global__ void sum_kernel(const float* x, float* y, int64_t n, bool past_the_end) {
    if (threadIdx.x != 0) return;
    float total = 0.0F;
    for (int64_t i = 0; i < n + (past_the_end ? 1 : 0); ++i) total += x[i];
    *y = total;
}

// y [8] = x [8] as halves, one 16-byte load from `x` and one 16-byte store to `y`.
__global__ void copy_vector_kernel(const __half* x, __half* y) {
    if (threadIdx.x != 0) return;
    const uint4 value = *reinterpret_cast<const uint4*>(x);
    *reinterpret_cast<uint4*>(y) = value;
}

// A wmma tile loaded from dynamic shared memory at byte `offset` (a multiple of 32, or not).
__global__ void wmma_offset_kernel(float* y, int64_t offset) {
    namespace wmma = nvcuda::wmma;
    EARSHOT_DYNAMIC_SHARED(unsigned char, shared);
    auto* tile = reinterpret_cast<__half*>(shared + offset);  // [16, 16]
    for (int64_t i = threadIdx.x; i < 16 * 16; i += blockDim.x) tile[i] = __float2half_rn(1.0F);
    __syncthreads();
    if (threadIdx.x >= 32) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0F);
    wmma::load_matrix_sync(a, tile, 16);
    wmma::load_matrix_sync(b, tile, 16);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(y, acc, 16, wmma::mem_row_major);
}

// 32 KiB of static shared memory beside the launch's dynamic shared memory.
__global__ void static_shared_kernel(float* y) {
    EARSHOT_STATIC_SHARED(float, table, 8192);
    EARSHOT_DYNAMIC_SHARED(float, extra);
    table[threadIdx.x] = 1.0F;
    extra[threadIdx.x] = 2.0F;
    __syncthreads();
    if (threadIdx.x == 0) *y = table[0] + extra[0];
}

// y [blocks]: block b writes b + 1, and when `chained` adds what block b - 1 wrote, which it
// may not have written yet on a GPU (blocks run in any order).
__global__ void chain_kernel(float* y, bool chained) {
    if (threadIdx.x != 0) return;
    const unsigned b = blockIdx.x;
    y[b] = static_cast<float>(b + 1) + (chained && b > 0 ? y[b - 1] : 0.0F);
}

// y [4] = x [4] through shared memory by one 16-byte asynchronous copy from x + offset floats,
// read after waiting for it (`wait`) or without.
__global__ void async_copy_kernel(const float* x, float* y, int64_t offset, bool wait) {
    EARSHOT_DYNAMIC_SHARED(float, tile);
    if (threadIdx.x == 0) __pipeline_memcpy_async(tile, x + offset, 16);
    __pipeline_commit();
    if (wait) __pipeline_wait_prior(0);
    __syncthreads();
    if (threadIdx.x < 4) y[threadIdx.x] = tile[threadIdx.x];
}

// x [n] = first + i (a kernel another is launched dependent on).
__global__ void fill_kernel(float* x, float first, int64_t n) {
    EARSHOT_GRID_STRIDE(i, n) { x[i] = first + static_cast<float>(i); }
}

// How a dependent launch of copy_after_kernel treats its wait.
enum class Wait : int { first = 0, never = 1, after_reading = 2, after_writing = 3 };

// y [n] = x [n], x written by the previous kernel: waiting for it first (correct), never,
// after reading x, or after writing into x.
__global__ void copy_after_kernel(float* x, float* y, int64_t n, int wait) {
    const auto how = static_cast<Wait>(wait);
    if (how == Wait::first) backend::cuda::kernels::wait_for_previous_kernel();
    if (how == Wait::after_writing && threadIdx.x == 0 && blockIdx.x == 0) x[n] = 0.0F;
    EARSHOT_GRID_STRIDE(i, n) { y[i] = x[i]; }
    if (how == Wait::after_reading || how == Wait::after_writing) {
        backend::cuda::kernels::wait_for_previous_kernel();
    }
}

// y [n] = x [n] + w [n], x written by the previous kernel and w by nobody during the launch (a
// weight): w loaded before the wait (as the GEMVs load their first tile), or, broken, x too.
__global__ void add_weights_after_kernel(const float* w, const float* x, float* y, int64_t n,
                                         bool x_before_waiting) {
    float early[4] = {};  // this thread's elements (4 blocks of 256 threads, n <= 4 x 1024)
    int loaded = 0;
    EARSHOT_GRID_STRIDE(i, n) { early[loaded++] = x_before_waiting ? x[i] + w[i] : w[i]; }
    backend::cuda::kernels::wait_for_previous_kernel();
    loaded = 0;
    EARSHOT_GRID_STRIDE(i, n) {
        const float value = early[loaded++];
        y[i] = x_before_waiting ? value : x[i] + value;
    }
}

float* device_floats(int64_t n) {
    void* p = nullptr;
    if (cudaMalloc(&p, static_cast<size_t>(n) * sizeof(float)) != cudaSuccess) return nullptr;
    return static_cast<float*>(p);
}

// The launch's error, else the synchronisation's; both cleared for the next probe.
int finish() {
    const cudaError_t launch = cudaGetLastError();
    const cudaError_t sync = cudaStreamSynchronize(nullptr);
    return launch != cudaSuccess ? launch : sync;
}

}  // namespace

// Runs probe `name`; `values` [count] receives its output. Returns the CUDA error it ended with
// (0: none), or -1 for an unknown name.
int run(std::string_view name, float* values, int64_t count) {
    float* y = device_floats(256);
    int error = -1;
    if (name == "unwritten_read" || name == "written_read") {
        float* x = device_floats(9);
        const float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        cudaMemcpy(x, ones, sizeof(ones), cudaMemcpyHostToDevice);  // x[8] left unwritten
        EARSHOT_LAUNCH(sum_kernel, 1, kThreads, 0, nullptr)(x, y, 8, name == "unwritten_read");
        error = finish();
        cudaFree(x);
    } else if (name == "misaligned_vector_load" || name == "misaligned_vector_store" ||
               name == "aligned_vector_copy") {
        void* x = nullptr;
        cudaMalloc(&x, 64);
        cudaMemsetAsync(x, 0, 64, nullptr);
        auto* halves = static_cast<__half*>(x);
        const bool load_off = name == "misaligned_vector_load";
        const bool store_off = name == "misaligned_vector_store";
        EARSHOT_LAUNCH(copy_vector_kernel, 1, kThreads, 0, nullptr)
        (halves + (load_off ? 2 : 0), reinterpret_cast<__half*>(y) + (store_off ? 2 : 0));
        error = finish();
        cudaFree(x);
    } else if (name == "misaligned_wmma_load" || name == "aligned_wmma_load") {
        const int64_t offset = name == "misaligned_wmma_load" ? 16 : 32;
        EARSHOT_LAUNCH(wmma_offset_kernel, 1, kThreads, 1024, nullptr)(y, offset);
        error = finish();
    } else if (name == "shared_over_limit" || name == "shared_over_limit_opted_in") {
        if (name == "shared_over_limit_opted_in") {
            cudaFuncSetAttribute(static_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 20 * 1024);
        }
        EARSHOT_LAUNCH(static_shared_kernel, 1, kThreads, 20 * 1024, nullptr)(y);
        error = finish();
        // Back to what a GPU allows without opting in: 48 KiB less the 32 KiB static.
        cudaFuncSetAttribute(static_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             16 * 1024);
    } else if (name == "dynamic_shared_over_limit") {
        EARSHOT_LAUNCH(wmma_offset_kernel, 1, kThreads, 49 * 1024, nullptr)(y, 0);
        error = finish();
    } else if (name == "async_copy_waited" || name == "async_copy_not_waited" ||
               name == "misaligned_async_copy") {
        float* x = device_floats(8);
        const float values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        cudaMemcpy(x, values, sizeof(values), cudaMemcpyHostToDevice);
        EARSHOT_LAUNCH(async_copy_kernel, 1, kThreads, 64, nullptr)
        (x, y, name == "misaligned_async_copy" ? 2 : 4, name != "async_copy_not_waited");
        error = finish();
        cudaFree(x);
    } else if (name == "dependent_waits" || name == "dependent_never_waits" ||
               name == "dependent_reads_before_waiting" ||
               name == "dependent_writes_before_waiting" || name == "dependent_waits_in_graph" ||
               name == "dependent_never_waits_in_graph") {
        const Wait wait =
            name == "dependent_never_waits" || name == "dependent_never_waits_in_graph"
                ? Wait::never
            : name == "dependent_reads_before_waiting"  ? Wait::after_reading
            : name == "dependent_writes_before_waiting" ? Wait::after_writing
                                                        : Wait::first;
        const bool graph = name.ends_with("_in_graph");
        constexpr int64_t n = 64 * 16;  // 4 blocks of 256 threads
        float* x = device_floats(n + 1);
        float* copy = device_floats(n);
        cudaStream_t stream = nullptr;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        cudaGraph_t captured = nullptr;
        cudaGraphExec_t exec = nullptr;
        if (graph) cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        {
            const backend::cuda::kernels::DependentLaunches dependent(true);
            EARSHOT_LAUNCH(fill_kernel, 4, kThreads, 0, stream)(x, 1.0F, n + 1);
            EARSHOT_LAUNCH_DEPENDENT(copy_after_kernel, 4, kThreads, 0, stream)
            (x, copy, n, static_cast<int>(wait));
        }
        if (graph) {
            cudaStreamEndCapture(stream, &captured);
            cudaGraphInstantiate(&exec, captured, 0);
            cudaGraphLaunch(exec, stream);  // twice: a replay checks as a launch does
            cudaGraphLaunch(exec, stream);
        }
        const cudaError_t launch = cudaGetLastError();
        const cudaError_t sync = cudaStreamSynchronize(stream);
        error = launch != cudaSuccess ? launch : sync;
        // y [0, 64): the copy's first 32 values and the last 32.
        cudaMemcpy(y, copy, 32 * sizeof(float), cudaMemcpyDeviceToDevice);
        cudaMemcpy(y + 32, copy + n - 32, 32 * sizeof(float), cudaMemcpyDeviceToDevice);
        if (exec != nullptr) cudaGraphExecDestroy(exec);
        if (captured != nullptr) cudaGraphDestroy(captured);
        cudaStreamDestroy(stream);
        cudaFree(copy);
        cudaFree(x);
    } else if (name == "dependent_loads_weights_before_waiting" ||
               name == "dependent_loads_activations_before_waiting") {
        constexpr int64_t n = 64 * 16;  // 4 blocks of 256 threads
        float* x = device_floats(n);
        float* w = device_floats(n);
        float* sum = device_floats(n);
        std::vector<float> twos(n, 2.0F);
        cudaMemcpy(w, twos.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        {
            const backend::cuda::kernels::DependentLaunches dependent(true);
            EARSHOT_LAUNCH(fill_kernel, 4, kThreads, 0, nullptr)(x, 1.0F, n);
            EARSHOT_LAUNCH_DEPENDENT(add_weights_after_kernel, 4, kThreads, 0, nullptr)
            (w, x, sum, n, name == "dependent_loads_activations_before_waiting");
        }
        error = finish();
        cudaMemcpy(y, sum, 32 * sizeof(float), cudaMemcpyDeviceToDevice);
        cudaMemcpy(y + 32, sum + n - 32, 32 * sizeof(float), cudaMemcpyDeviceToDevice);
        cudaFree(sum);
        cudaFree(w);
        cudaFree(x);
    } else if (name == "racing_blocks" || name == "independent_blocks") {
        EARSHOT_LAUNCH(chain_kernel, 64, kThreads, 0, nullptr)(y, name == "racing_blocks");
        error = finish();
    } else if (name == "racing_blocks_200_launches") {
        // The same racing grid launched 200 times (48 blocks: a shape no other probe launches,
        // so the sampled check's count starts here); values[0] = launches that ended in an error.
        int failed = 0;
        for (int i = 0; i < 200; ++i) {
            cudaMemsetAsync(y, 0, 48 * sizeof(float), nullptr);  // so each launch's race shows
            EARSHOT_LAUNCH(chain_kernel, 48, kThreads, 0, nullptr)(y, true);
            if (finish() != cudaSuccess) ++failed;
        }
        cudaFree(y);
        if (values != nullptr && count > 0) values[0] = static_cast<float>(failed);
        return cudaSuccess;
    }
    if (values != nullptr && count > 0) {
        cudaMemcpy(values, y, static_cast<size_t>(std::min<int64_t>(count, 256)) * sizeof(float),
                   cudaMemcpyDeviceToHost);
    }
    cudaFree(y);
    return error;
}

}  // namespace earshot::cuda_emulator::probes

extern "C" __attribute__((visibility("default"))) int earshot_cuda_emulator_probe(const char* name,
                                                                                  float* values,
                                                                                  int64_t count) {
    return earshot::cuda_emulator::probes::run(name, values, count);
}
