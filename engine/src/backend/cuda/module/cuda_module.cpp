// The module's entry point and device discovery: what the engine dlopens. CUDA's failures become
// CudaErrors that say what is missing (driver, device, kernel image for this GPU).
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <memory>
#include <string>

#include "backend/cuda/device_module.h"
#include "cuda_check.h"
#include "cuda_device_model.h"
#include "kernels.h"

#ifndef EARSHOT_CUDA_ARCHITECTURES
#define EARSHOT_CUDA_ARCHITECTURES "unknown"
#endif

namespace earshot::backend::cuda {

namespace {

std::string version_text(int version) {  // 13000 -> "13.0"
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why cudaGetDeviceCount failed, in the user's terms.
[[noreturn]] void throw_unavailable(cudaError_t status) {
    cudaGetLastError();
    if (status == cudaErrorInsufficientDriver) {
        void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (driver == nullptr) {
            throw CudaError(CudaErrorKind::no_driver,
                            "no NVIDIA driver: libcuda.so.1 was not found (install the NVIDIA "
                            "driver to use the GPU)");
        }
        dlclose(driver);
        int driver_version = 0;
        cudaDriverGetVersion(&driver_version);
        throw CudaError(CudaErrorKind::driver_too_old,
                        "the NVIDIA driver supports CUDA " + version_text(driver_version) +
                            ", this build needs CUDA " + version_text(CUDART_VERSION) + " (" +
                            cudaGetErrorString(status) + "); update the driver");
    }
    if (status == cudaErrorNoDevice) {
        throw CudaError(CudaErrorKind::no_device,
                        std::string("the NVIDIA driver sees no CUDA device (") +
                            cudaGetErrorString(status) + ")");
    }
    throw_cuda(status, "cudaGetDeviceCount", __FILE__, __LINE__);
}

class CudaModule final : public Module {
public:
    std::vector<CudaDevice> devices() override {
        int n = 0;
        const cudaError_t status = cudaGetDeviceCount(&n);
        if (status != cudaSuccess) throw_unavailable(status);
        if (n == 0) throw CudaError(CudaErrorKind::no_device, "no CUDA device is present");
        std::vector<CudaDevice> found;
        for (int i = 0; i < n; ++i) {
            cudaDeviceProp props{};
            CUDA_CHECK(cudaGetDeviceProperties(&props, i));
            CudaDevice device;
            device.index = i;
            device.name = props.name;
            device.total_memory_bytes = static_cast<int64_t>(props.totalGlobalMem);
            device.compute_major = props.major;
            device.compute_minor = props.minor;
            size_t free_bytes = 0;
            size_t total_bytes = 0;
            if (cudaSetDevice(i) == cudaSuccess &&
                cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
                device.free_memory_bytes = static_cast<int64_t>(free_bytes);
            }
            cudaGetLastError();
            found.push_back(device);
        }
        return found;
    }

    std::unique_ptr<DeviceModel> open(int device, const std::string& model_name) override {
        int n = 0;
        const cudaError_t status = cudaGetDeviceCount(&n);
        if (status != cudaSuccess) throw_unavailable(status);
        if (device < 0 || device >= n) {
            throw CudaError(CudaErrorKind::no_device, "CUDA device " + std::to_string(device) +
                                                          " does not exist (" + std::to_string(n) +
                                                          " present)");
        }
        CUDA_CHECK(cudaSetDevice(device));
        if (!kernels::image_available()) {
            cudaDeviceProp props{};
            CUDA_CHECK(cudaGetDeviceProperties(&props, device));
            throw CudaError(CudaErrorKind::no_kernel_image,
                            std::string("this build of Earshot's CUDA backend has no kernel for ") +
                                props.name + " (compute capability " + std::to_string(props.major) +
                                "." + std::to_string(props.minor) + "); it was built for " +
                                EARSHOT_CUDA_ARCHITECTURES +
                                " (rebuild with CMAKE_CUDA_ARCHITECTURES including it)");
        }
        return std::make_unique<CudaDeviceModel>(device, model_name);
    }
};

}  // namespace

}  // namespace earshot::backend::cuda

extern "C" __attribute__((visibility("default"))) earshot::backend::cuda::Module*
earshot_cuda_module(int abi_version) {
    if (abi_version != earshot::backend::cuda::kModuleAbiVersion) return nullptr;
    static earshot::backend::cuda::CudaModule module;
    return &module;
}
