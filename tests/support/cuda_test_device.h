// What the CUDA tests ask of the device: why there is none, and the emulated device's count of
// CUDA graph launches.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::test {

// Why no CUDA device can be used ("<kind>: <message>"), or nullopt when one can.
inline std::optional<std::string> cuda_unavailable() {
    try {
        (void)backend::cuda_devices();
        return std::nullopt;
    } catch (const backend::CudaError& error) {
        return std::string(backend::cuda_error_kind_name(error.kind())) + ": " + error.what();
    }
}

// The emulated device's count of CUDA graph launches (nullopt on a real GPU).
inline std::optional<size_t> emulator_graph_launches() {
    const char* module = std::getenv("EARSHOT_CUDA_MODULE");
    if (module == nullptr) return std::nullopt;
    void* handle = dlopen(module, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return std::nullopt;
    using Count = size_t (*)();
    auto count = reinterpret_cast<Count>(dlsym(handle, "earshot_cuda_emulator_graph_launches"));
    dlclose(handle);
    if (count == nullptr) return std::nullopt;
    return count();
}

}  // namespace earshot::test
