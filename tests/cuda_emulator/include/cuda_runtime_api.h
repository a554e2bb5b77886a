// A CPU emulation of the part of the CUDA runtime API that Earshot's CUDA module uses, so the
// tests can build and run that module (its kernels, GEMM calls and plan interpreter) on a machine
// without a GPU. Device memory is host memory; a stream runs its work at once, in order; events
// read the host clock. A test double: it checks the module's logic, never CUDA's timing.
#pragma once

#include <cstddef>
#include <cstdint>

#define CUDART_VERSION 13000

enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorUnsupportedPtxVersion = 222,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorUnknown =
        999,  // the emulator's own finding: a race between blocks, a launch not waiting
};

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
};

struct CUstream_st;
using cudaStream_t = CUstream_st*;
struct CUgraph_st;
using cudaGraph_t = CUgraph_st*;
struct CUgraphExec_st;
using cudaGraphExec_t = CUgraphExec_st*;
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2,
};
struct CUevent_st;
using cudaEvent_t = CUevent_st*;
inline constexpr unsigned cudaStreamNonBlocking = 1;

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int major;
    int minor;
};

struct cudaFuncAttributes {
    int maxThreadsPerBlock;
};

const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* props, int device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMalloc(void** ptr, size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t bytes);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
// Graphs: a capturing stream records its work instead of running it; a launch replays it.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

namespace earshot::cuda_emulator {
// Test hooks: bytes that cudaMalloc may hand out in all (beyond it: cudaErrorMemoryAllocation),
// and the bytes allocated now.
void set_memory_limit(size_t bytes);
size_t allocated_bytes();
// How many graph launches and captures there were (the tests read them to see graphs used).
size_t graph_launches();
size_t graph_captures();
}  // namespace earshot::cuda_emulator
