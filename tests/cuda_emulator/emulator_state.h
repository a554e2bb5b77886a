// The CUDA emulator (a CPU emulation of the CUDA runtime and cuBLAS calls the module makes, so that
// the tests run its real kernels and plan interpreter here): the handles it gives out (streams,
// graphs, events, cuBLAS contexts) and what its runtime, cuBLAS and GPU threads share.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cublas_v2.h"
#include "cuda_runtime.h"

using Work = std::vector<std::function<void()>>;
struct CUstream_st {
    Work* capture = nullptr;  // while capturing: where the stream's work goes instead
};
struct CUgraph_st {
    Work work;
};
struct CUgraphExec_st {
    Work work;
};
struct CUevent_st {
    std::chrono::steady_clock::time_point at;
};
struct cublasContext {
    cudaStream_t stream = nullptr;
};

namespace earshot::cuda_emulator {

// What device memory and shared memory hold before anything writes them: NaN as f32 and f16.
inline constexpr int kUnwrittenByte = 0xFF;

extern std::mutex g_mutex;           // one grid at a time (tests may run models on several threads)
extern cudaError_t g_last_error;     // what cudaGetLastError() returns next
extern cudaError_t g_pending_fault;  // what the next cudaStreamSynchronize() returns
// The device memory there is (EARSHOT_CUDA_EMULATOR_MEMORY_BYTES, else 8 GiB), and the
// allocations in it.
extern size_t g_memory_limit;
extern size_t g_allocated;
extern std::map<void*, size_t> g_allocations;  // start -> bytes
// The allocations that hold `pointers`, each once: [start, bytes] (g_mutex held).
std::vector<std::pair<std::byte*, size_t>> allocations_of(const std::vector<void*>& pointers);
// Kernels run so far (grids, cuBLAS calls, device-to-device copies; a graph's replayed ones
// included), for the tests that hold the plan listing to what the module launches.
extern std::atomic<size_t> g_kernel_runs;
// Grids run so far launched dependent (EARSHOT_LAUNCH_DEPENDENT while allowed) and plainly (a
// graph's replayed ones included), for the tests that every kernel of a decoder step is dependent.
extern std::atomic<size_t> g_dependent_grids;
extern std::atomic<size_t> g_plain_grids;
// Bytes copied from the device to the host (cudaMemcpy and cudaMemcpyAsync, device to host).
extern std::atomic<size_t> g_bytes_to_host;
// Bytes copied from the host to the device, and those of them from pageable memory (not from
// cudaMallocHost): a copy of pageable memory is staged by the driver, synchronously.
extern std::atomic<size_t> g_bytes_to_device;
extern std::atomic<size_t> g_pageable_bytes_to_device;
// cuBLASLt heuristic queries, and the distinct GEMMs cublasLtMatmul ran (per handle: problem,
// pointer alignments, workspace), for the test that each distinct GEMM asks once.
extern std::atomic<size_t> g_lt_heuristic_queries;
size_t lt_distinct_gemms();
// cublasLtMatmul calls run (a graph's replayed ones included), for the tests that count a
// fused run's GEMMs.
extern std::atomic<size_t> g_lt_matmuls;
// Device allocations made so far (cudaMalloc calls that succeeded), for the tests that count
// what a resize allocates.
extern std::atomic<size_t> g_allocations_made;
extern size_t g_graph_launches;
extern size_t g_graph_captures;

// Whether `stream` is capturing a graph (its work is recorded, not run).
bool capturing(cudaStream_t stream);

// What ran last on a stream, for the dependent-launch check of its next grid (run_grid): a grid or
// library kernel (its name and the pointers it may write), or nothing a dependent launch can
// overlap (a copy, a memset, a graph's start). previous_work: the stream's, g_mutex held.
struct PreviousWork {
    bool kernel = false;
    const char* name = "";
    std::vector<void*> written;
};
PreviousWork& previous_work(cudaStream_t stream);
// What ran last on `stream`, for the dependent-launch check of its next grid: a copy or memset
// (a dependent launch after it waits for it whole; a synchronous copy, null, on every stream), or
// a library kernel (cuBLAS) writing `written`.
void note_copy_work(cudaStream_t stream);
void note_library_kernel(cudaStream_t stream, const char* name, void* written);

}  // namespace earshot::cuda_emulator
