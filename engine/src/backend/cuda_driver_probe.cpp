// missing_cuda_driver(): whether the NVIDIA driver library is absent, found without loading the
// CUDA module. The module links cuBLAS, whose libraries alone hold about 140 MiB resident once
// mapped and relocated (measured: libcublasLt's text 60 MiB, its data 81 MiB), device or not; a
// machine without the driver can never run CUDA, so `auto` need not pay for that to learn it.
#include "earshot/engine/backend/cuda_driver_probe.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "backend/cuda/module_loader.h"

namespace earshot::backend {

std::optional<CudaError> missing_cuda_driver() {
    // A module named explicitly is always loaded: the emulated one runs without a driver.
    if (const char* named = std::getenv("EARSHOT_CUDA_MODULE"); named != nullptr && *named != 0) {
        return std::nullopt;
    }
    if (!cuda_backend_built()) return std::nullopt;  // cuda_devices() says "not built"
    // Without the module file cuda_devices() loads nothing and says it is missing: that stays
    // its answer.
    std::error_code error;
    bool module_found = false;
    for (const std::filesystem::path& candidate : cuda::module_candidates()) {
        module_found = module_found || std::filesystem::is_regular_file(candidate, error);
    }
    if (!module_found) return std::nullopt;
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver != nullptr) {
        dlclose(driver);
        return std::nullopt;
    }
    // The words the module uses for the same finding (cuda_module.cpp).
    return CudaError(CudaErrorKind::no_driver,
                     "no NVIDIA driver: libcuda.so.1 was not found (install the NVIDIA driver to "
                     "use the GPU)");
}

}  // namespace earshot::backend
