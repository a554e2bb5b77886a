// Whether this machine lacks the NVIDIA driver, known without loading the CUDA module.
#pragma once

#include <optional>

#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::backend {

// The error cuda_devices() would throw for a machine without the NVIDIA driver, found without
// loading the module (and the cuBLAS it maps, about 140 MiB resident); nullopt when the driver
// library loads, when this build has no CUDA backend, when the module file is not where the loader
// looks (cuda_devices() then says so, loading nothing), or when EARSHOT_CUDA_MODULE names a module
// (the emulated module needs no driver).
std::optional<CudaError> missing_cuda_driver();

}  // namespace earshot::backend
