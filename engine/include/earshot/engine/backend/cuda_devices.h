// The CUDA backend's availability: whether it was built, which devices its module sees, and the
// typed error that says precisely why it cannot run (no module, no driver, no device, ...).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::backend {

// Why the CUDA backend failed. Each kind comes with CUDA's (or the loader's) own message.
enum class CudaErrorKind {
    not_built,        // this build has no CUDA backend (EARSHOT_CUDA=OFF or no toolkit)
    module_missing,   // libearshot_cuda.so was not found where the build installs it
    library_missing,  // the module was found but a library it needs (cuBLAS) was not
    no_driver,        // no NVIDIA driver (libcuda.so.1) on this machine
    driver_too_old,   // the driver is older than the CUDA runtime the module was built with
    no_device,        // a driver but no CUDA device (or the device index does not exist)
    no_kernel_image,  // the module has no kernel for this GPU's architecture
    out_of_memory,    // the device has too little free memory (the message names the model)
    runtime,          // any other CUDA or cuBLAS failure
};

std::string_view cuda_error_kind_name(CudaErrorKind kind);

// Thrown by the CUDA backend's setup and runs. Header-only on purpose: the module throws it across
// the dlopen boundary and the engine catches it by type.
class CudaError : public std::runtime_error {
public:
    CudaError(CudaErrorKind kind, const std::string& message)
        : std::runtime_error(message), kind_(kind) {}
    CudaErrorKind kind() const noexcept { return kind_; }

private:
    CudaErrorKind kind_;
};

struct CudaDevice {
    int index = 0;
    std::string name;  // "NVIDIA H200"
    int64_t total_memory_bytes = 0;
    int64_t free_memory_bytes = 0;
    int compute_major = 0;  // compute capability, 9.0 for an H100 or H200
    int compute_minor = 0;
};

// True when this build has the CUDA backend (its module may still be absent at run time).
bool cuda_backend_built();

// The CUDA devices the module sees, loading it on first use. Throws CudaError saying what is
// missing (never returns an empty list: no device is CudaErrorKind::no_device).
std::vector<CudaDevice> cuda_devices();

// Where the module was loaded from, or would be looked for; one path per line when not found.
std::string cuda_module_location();

// Why CUDA cannot run, with the error's kind: "CUDA is not available (no driver: ...)".
std::string cuda_unavailable_reason(const CudaError& error);
// Why `auto` runs on the CPU: cuda_unavailable_reason + "; running on the CPU".
std::string cuda_fallback_reason(const CudaError& error);

// "NVIDIA H200, 139.8 GiB, compute 9.0"
std::string describe_cuda_device(const CudaDevice& device);

}  // namespace earshot::backend
