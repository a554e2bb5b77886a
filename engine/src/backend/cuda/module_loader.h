// Finding and loading the CUDA module at run time (dlopen), once per process.
#pragma once

#include <filesystem>
#include <vector>

#include "device_module.h"

namespace earshot::backend::cuda {

// The loaded module; throws CudaError (not_built, module_missing, library_missing) saying what
// was missing and where it looked. A failure is remembered: later calls throw the same error.
Module& load_module();

// Where load_module() looks, most specific first: EARSHOT_CUDA_MODULE alone when set, else beside
// the executable, ../lib/earshot and ../lib.
std::vector<std::filesystem::path> module_candidates();

}  // namespace earshot::backend::cuda
