// CUDA_CHECK / CUBLAS_CHECK: a failed CUDA or cuBLAS call throws CudaError with CUDA's own
// message, the call that failed and where; never exit().
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::backend::cuda {

// The error kind a CUDA status stands for.
inline CudaErrorKind kind_of(cudaError_t status) {
    switch (status) {
        case cudaErrorInsufficientDriver:
            return CudaErrorKind::driver_too_old;
        case cudaErrorNoDevice:
        case cudaErrorInvalidDevice:
            return CudaErrorKind::no_device;
        case cudaErrorNoKernelImageForDevice:
        case cudaErrorInvalidDeviceFunction:
        case cudaErrorUnsupportedPtxVersion:
            return CudaErrorKind::no_kernel_image;
        case cudaErrorMemoryAllocation:
            return CudaErrorKind::out_of_memory;
        default:
            return CudaErrorKind::runtime;
    }
}

[[noreturn]] inline void throw_cuda(cudaError_t status, const char* call, const char* file,
                                    int line) {
    throw CudaError(kind_of(status), std::string(call) + " failed: " + cudaGetErrorString(status) +
                                         " (" + cudaGetErrorName(status) + ", " + file + ":" +
                                         std::to_string(line) + ")");
}

[[noreturn]] inline void throw_cublas(cublasStatus_t status, const char* call, const char* file,
                                      int line) {
    const CudaErrorKind kind = status == CUBLAS_STATUS_ALLOC_FAILED ? CudaErrorKind::out_of_memory
                               : status == CUBLAS_STATUS_ARCH_MISMATCH
                                   ? CudaErrorKind::no_kernel_image
                                   : CudaErrorKind::runtime;
    throw CudaError(kind, std::string(call) + " failed: " + cublasGetStatusString(status) + " (" +
                              cublasGetStatusName(status) + ", " + file + ":" +
                              std::to_string(line) + ")");
}

}  // namespace earshot::backend::cuda

#define CUDA_CHECK(call)                                                                      \
    do {                                                                                      \
        const cudaError_t earshot_status_ = (call);                                           \
        if (earshot_status_ != cudaSuccess) {                                                 \
            ::earshot::backend::cuda::throw_cuda(earshot_status_, #call, __FILE__, __LINE__); \
        }                                                                                     \
    } while (false)

#define CUBLAS_CHECK(call)                                                                      \
    do {                                                                                        \
        const cublasStatus_t earshot_status_ = (call);                                          \
        if (earshot_status_ != CUBLAS_STATUS_SUCCESS) {                                         \
            ::earshot::backend::cuda::throw_cublas(earshot_status_, #call, __FILE__, __LINE__); \
        }                                                                                       \
    } while (false)
