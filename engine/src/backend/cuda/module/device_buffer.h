// DeviceBuffer: one cudaMalloc'ed allocation, freed with its owner. Running out of memory names
// the model and what it needed.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <utility>

#include "cuda_check.h"

namespace earshot::backend::cuda {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    // `what` and `model_name` go into the out-of-memory message.
    DeviceBuffer(int64_t bytes, const std::string& what, const std::string& model_name);
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            ptr_ = std::exchange(other.ptr_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void* get() const { return ptr_; }
    template <typename T>
    T* as() const {
        return static_cast<T*>(ptr_);
    }
    int64_t bytes() const { return bytes_; }
    void reset() {
        if (ptr_ != nullptr) cudaFree(ptr_);  // an error here cannot be reported from a destructor
        ptr_ = nullptr;
        bytes_ = 0;
    }

private:
    void* ptr_ = nullptr;
    int64_t bytes_ = 0;
};

// "36 KiB", "1200 MiB"
inline std::string bytes_text(int64_t bytes) {
    return bytes < (int64_t{1} << 20) ? std::to_string((bytes + 1023) >> 10) + " KiB"
                                      : std::to_string(bytes >> 20) + " MiB";
}

inline DeviceBuffer::DeviceBuffer(int64_t bytes, const std::string& what,
                                  const std::string& model_name) {
    if (bytes <= 0) return;
    const cudaError_t status = cudaMalloc(&ptr_, static_cast<size_t>(bytes));
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // clear it: the device stays usable
        size_t free_bytes = 0;
        size_t total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        throw CudaError(CudaErrorKind::out_of_memory,
                        "out of GPU memory: " + model_name + " needs " + bytes_text(bytes) +
                            " more for " + what + ", the device has " +
                            bytes_text(static_cast<int64_t>(free_bytes)) + " free of " +
                            bytes_text(static_cast<int64_t>(total_bytes)));
    }
    if (status != cudaSuccess) throw_cuda(status, "cudaMalloc", __FILE__, __LINE__);
    bytes_ = bytes;
}

}  // namespace earshot::backend::cuda
