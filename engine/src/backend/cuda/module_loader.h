// Finding and loading the CUDA module at run time (dlopen), once per process.
#pragma once

#include "device_module.h"

namespace earshot::backend::cuda {

// The loaded module; throws CudaError (not_built, module_missing, library_missing) saying what
// was missing and where it looked. A failure is remembered: later calls throw the same error.
Module& load_module();

}  // namespace earshot::backend::cuda
