// The emulated CUDA runtime: host memory as device memory (0xFF bytes until written, a limit to
// run out of), streams that run work at once, graphs captured and replayed, events, errors.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_runtime.h"
#include "emulator_state.h"

namespace earshot::cuda_emulator {

namespace {

// EARSHOT_CUDA_EMULATOR_MEMORY_BYTES: the device memory there is, to test running out of it.
size_t initial_memory_limit() {
    const char* bytes = std::getenv("EARSHOT_CUDA_EMULATOR_MEMORY_BYTES");
    return bytes != nullptr ? std::strtoull(bytes, nullptr, 10) : size_t{8} << 30;
}

}  // namespace

std::mutex g_mutex;
cudaError_t g_last_error = cudaSuccess;
cudaError_t g_pending_fault = cudaSuccess;
size_t g_memory_limit = initial_memory_limit();
size_t g_allocated = 0;
std::map<void*, size_t> g_allocations;
std::atomic<size_t> g_allocations_made{0};
std::atomic<size_t> g_kernel_runs{0};
std::atomic<size_t> g_dependent_grids{0};
std::atomic<size_t> g_plain_grids{0};
std::atomic<size_t> g_bytes_to_host{0};
std::atomic<size_t> g_bytes_to_device{0};
std::atomic<size_t> g_pageable_bytes_to_device{0};

namespace {

std::mutex g_pinned_mutex;
std::map<const void*, size_t> g_pinned;  // cudaMallocHost's allocations: start -> bytes

bool pinned(const void* host, size_t bytes) {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    auto after = g_pinned.upper_bound(host);
    if (after == g_pinned.begin()) return false;
    const auto& [start, size] = *std::prev(after);
    return static_cast<const std::byte*>(host) + bytes <=
           static_cast<const std::byte*>(start) + size;
}

void count_to_device(const void* host, size_t bytes) {
    g_bytes_to_device += bytes;
    if (!pinned(host, bytes)) g_pageable_bytes_to_device += bytes;
}

}  // namespace
size_t g_graph_launches = 0;
size_t g_graph_captures = 0;

bool capturing(cudaStream_t stream) { return stream != nullptr && stream->capture != nullptr; }

namespace {
std::map<cudaStream_t, PreviousWork> g_previous;  // by stream, g_mutex held
}  // namespace

PreviousWork& previous_work(cudaStream_t stream) { return g_previous[stream]; }

void note_copy_work(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (stream == nullptr) {
        g_previous.clear();
    } else {
        g_previous.erase(stream);
    }
}

void note_library_kernel(cudaStream_t stream, const char* name, void* written) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_previous[stream] = PreviousWork{true, name, {written}};
}

void enqueue_work(cudaStream_t stream, std::function<void()> work) {
    if (capturing(stream)) {
        // EARSHOT_CUDA_EMULATOR_THROW_WHILE_CAPTURING=1: a launch into a capture throws a plain
        // exception (not a CUDA error), to test that the module ends the capture whatever throws.
        if (const char* throws = std::getenv("EARSHOT_CUDA_EMULATOR_THROW_WHILE_CAPTURING");
            throws != nullptr && std::string(throws) == "1") {
            throw std::runtime_error("CUDA emulator: an exception during a capture");
        }
        stream->capture->push_back(std::move(work));
        return;
    }
    work();
}

size_t graph_launches() { return g_graph_launches; }
size_t graph_captures() { return g_graph_captures; }

void set_memory_limit(size_t bytes) { g_memory_limit = bytes; }
size_t allocated_bytes() { return g_allocated; }

std::vector<std::pair<std::byte*, size_t>> allocations_of(const std::vector<void*>& pointers) {
    std::vector<std::pair<std::byte*, size_t>> found;
    for (void* pointer : pointers) {
        auto after = g_allocations.upper_bound(pointer);
        if (after == g_allocations.begin()) continue;
        const auto& [start, bytes] = *std::prev(after);
        auto* first = static_cast<std::byte*>(start);
        if (static_cast<std::byte*>(pointer) >= first + bytes) continue;
        if (std::find(found.begin(), found.end(), std::pair(first, bytes)) == found.end()) {
            found.emplace_back(first, bytes);
        }
    }
    return found;
}

}  // namespace earshot::cuda_emulator

using namespace earshot::cuda_emulator;

const char* cudaGetErrorString(cudaError_t error) {
    switch (error) {
        case cudaSuccess:
            return "no error";
        case cudaErrorMemoryAllocation:
            return "out of memory";
        case cudaErrorInvalidValue:
            return "invalid argument";
        case cudaErrorLaunchFailure:
            return "unspecified launch failure";
        case cudaErrorStreamCaptureInvalidated:
            return "operation failed due to a previous error during capture";
        case cudaErrorMisalignedAddress:
            return "misaligned address";
        case cudaErrorUnknown:
            return "unknown error (the emulator saw a race between blocks, or a dependent "
                   "launch that did not wait for the kernel before it)";
        default:
            return "emulated CUDA error";
    }
}

const char* cudaGetErrorName(cudaError_t error) {
    switch (error) {
        case cudaSuccess:
            return "cudaSuccess";
        case cudaErrorMemoryAllocation:
            return "cudaErrorMemoryAllocation";
        case cudaErrorInvalidValue:
            return "cudaErrorInvalidValue";
        case cudaErrorLaunchFailure:
            return "cudaErrorLaunchFailure";
        case cudaErrorStreamCaptureInvalidated:
            return "cudaErrorStreamCaptureInvalidated";
        case cudaErrorMisalignedAddress:
            return "cudaErrorMisalignedAddress";
        default:
            return "cudaErrorUnknown";
    }
}

cudaError_t cudaGetLastError() {
    const cudaError_t error = g_last_error;
    g_last_error = cudaSuccess;
    return error;
}

cudaError_t cudaGetDeviceCount(int* count) {
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* props, int device) {
    if (device != 0) return cudaErrorInvalidDevice;
    std::memset(props, 0, sizeof(*props));
    std::strncpy(props->name, "CUDA emulator (CPU)", sizeof(props->name) - 1);
    props->totalGlobalMem = g_memory_limit;
    props->major = 9;
    props->minor = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaDriverGetVersion(int* version) {
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    *total_bytes = g_memory_limit;
    *free_bytes = g_memory_limit > g_allocated ? g_memory_limit - g_allocated : 0;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_allocated + bytes > g_memory_limit) {
        g_last_error = cudaErrorMemoryAllocation;
        return cudaErrorMemoryAllocation;
    }
    *ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (*ptr == nullptr) return cudaErrorMemoryAllocation;
    // Like device memory, never zero by accident, and more: 0xFF bytes are NaN as f32 and as f16
    // (and -1 as an integer), so an output computed from memory nobody wrote shows as NaN.
    std::memset(*ptr, kUnwrittenByte, bytes);
    g_allocations[*ptr] = bytes;
    g_allocated += bytes;
    ++g_allocations_made;
    return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (ptr == nullptr) return cudaSuccess;
    auto found = g_allocations.find(ptr);
    if (found == g_allocations.end()) return cudaErrorInvalidValue;
    g_allocated -= found->second;
    g_allocations.erase(found);
    std::free(ptr);
    return cudaSuccess;
}

// Pinned host memory: host memory here, not counted against the device's.
cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
    *ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (*ptr == nullptr) return cudaErrorMemoryAllocation;
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    g_pinned[*ptr] = bytes;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
    {
        std::lock_guard<std::mutex> lock(g_pinned_mutex);
        g_pinned.erase(ptr);
    }
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    if (kind == cudaMemcpyDeviceToHost) g_bytes_to_host += bytes;
    if (kind == cudaMemcpyHostToDevice) count_to_device(src, bytes);
    note_copy_work(nullptr);
    std::memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
    if (capturing(stream) && kind != cudaMemcpyDeviceToDevice) {
        // A graph cannot hold a copy from or to pageable host memory.
        g_last_error = cudaErrorStreamCaptureUnsupported;
        return cudaErrorStreamCaptureUnsupported;
    }
    if (kind == cudaMemcpyHostToDevice) count_to_device(src, bytes);
    enqueue_work(stream, [=] {
        if (kind == cudaMemcpyDeviceToDevice) ++g_kernel_runs;
        if (kind == cudaMemcpyDeviceToHost) g_bytes_to_host += bytes;
        note_copy_work(stream);
        std::memmove(dst, src, bytes);
    });
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
    enqueue_work(stream, [=] {
        note_copy_work(stream);
        std::memset(dst, value, bytes);
    });
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned /*flags*/) {
    *stream = new CUstream_st;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (capturing(stream)) return cudaErrorStreamCaptureUnsupported;
    return std::exchange(g_pending_fault, cudaSuccess);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode /*mode*/) {
    if (stream == nullptr || capturing(stream)) return cudaErrorInvalidValue;
    stream->capture = new Work;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    if (!capturing(stream)) return cudaErrorInvalidValue;
    // EARSHOT_CUDA_EMULATOR_REFUSE_CAPTURE=1: every capture ends invalidated, as one does on a
    // GPU after a call that cannot be captured.
    if (const char* refuse = std::getenv("EARSHOT_CUDA_EMULATOR_REFUSE_CAPTURE");
        refuse != nullptr && std::string(refuse) == "1") {
        delete stream->capture;
        stream->capture = nullptr;
        *graph = nullptr;
        return cudaErrorStreamCaptureInvalidated;
    }
    *graph = new CUgraph_st{std::move(*stream->capture)};
    delete stream->capture;
    stream->capture = nullptr;
    ++g_graph_captures;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long /*flags*/) {
    *exec = new CUgraphExec_st{graph->work};
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    ++g_graph_launches;
    // The graph's first kernel waits for the work before it whole.
    enqueue_work(stream, [stream] { note_copy_work(stream); });
    for (const auto& work : exec->work) enqueue_work(stream, work);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    delete exec;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
    *event = new CUevent_st;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    delete event;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t /*stream*/) {
    event->at = std::chrono::steady_clock::now();
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
    return cudaSuccess;
}
