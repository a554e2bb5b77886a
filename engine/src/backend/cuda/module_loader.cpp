// The CUDA module's loader: EARSHOT_CUDA_MODULE, else next to the executable, else the install
// and build layouts (../lib/earshot, ../lib); dlopen'ed once and kept for the process.
#include "module_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>

namespace earshot::backend {

namespace fs = std::filesystem;

namespace {

fs::path executable_dir() {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : exe.parent_path();
}

struct Loaded {
    cuda::Module* module = nullptr;
    std::optional<CudaError> error;
    fs::path path;
};

Loaded load_once() {
    Loaded loaded;
#ifndef EARSHOT_HAVE_CUDA
    loaded.error = CudaError(CudaErrorKind::not_built,
                             "this build of Earshot has no CUDA backend (built with "
                             "EARSHOT_CUDA=OFF or without the CUDA toolkit)");
    return loaded;
#else
    std::vector<fs::path> candidates = cuda::module_candidates();
    std::ostringstream looked;
    for (const fs::path& candidate : candidates) {
        std::error_code error;
        if (!fs::is_regular_file(candidate, error)) {
            looked << (looked.tellp() > 0 ? ", " : "") << candidate.lexically_normal().string();
            continue;
        }
        loaded.path = candidate.lexically_normal();
        void* handle = dlopen(loaded.path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            loaded.error = CudaError(
                CudaErrorKind::library_missing,
                "the CUDA module " + loaded.path.string() +
                    " cannot be loaded: " + (why != nullptr ? why : "unknown dlopen error") +
                    " (cuBLAS 13 comes with the CUDA 13 toolkit or its libcublas package)");
            return loaded;
        }
        auto entry = reinterpret_cast<cuda::ModuleEntry>(dlsym(handle, cuda::kModuleEntryName));
        cuda::Module* module = entry != nullptr ? entry(cuda::kModuleAbiVersion) : nullptr;
        if (module == nullptr) {
            loaded.error = CudaError(CudaErrorKind::module_missing,
                                     "the CUDA module " + loaded.path.string() +
                                         " belongs to another version of Earshot");
            return loaded;
        }
        loaded.module = module;  // kept for the process: never dlclose'd
        return loaded;
    }
    loaded.error = CudaError(CudaErrorKind::module_missing,
                             std::string("the CUDA module ") + cuda::kModuleFileName +
                                 " was not found (looked for " + looked.str() + ")");
    return loaded;
#endif
}

const Loaded& loaded_module() {
    static const Loaded loaded = load_once();
    return loaded;
}

}  // namespace

namespace cuda {

std::vector<fs::path> module_candidates() {
    if (const char* explicit_path = std::getenv("EARSHOT_CUDA_MODULE");
        explicit_path != nullptr && *explicit_path != '\0') {
        return {fs::path(explicit_path)};
    }
    const fs::path dir = executable_dir();
    if (dir.empty()) return {};
    return {dir / cuda::kModuleFileName, dir / ".." / "lib" / "earshot" / cuda::kModuleFileName,
            dir / ".." / "lib" / cuda::kModuleFileName};
}

Module& load_module() {
    const Loaded& loaded = loaded_module();
    if (loaded.error) throw *loaded.error;
    return *loaded.module;
}

}  // namespace cuda

bool cuda_backend_built() {
#ifdef EARSHOT_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

std::vector<CudaDevice> cuda_devices() { return cuda::load_module().devices(); }

std::string cuda_module_location() {
    const Loaded& loaded = loaded_module();
    if (!loaded.path.empty()) return loaded.path.string();
    std::string paths;
    for (const fs::path& candidate : cuda::module_candidates()) {
        paths += (paths.empty() ? "" : "\n") + candidate.lexically_normal().string();
    }
    return paths;
}

std::string cuda_unavailable_reason(const CudaError& error) {
    return "CUDA is not available (" + std::string(cuda_error_kind_name(error.kind())) + ": " +
           error.what() + ")";
}

std::string cuda_fallback_reason(const CudaError& error) {
    return cuda_unavailable_reason(error) + "; running on the CPU";
}

std::string describe_cuda_device(const CudaDevice& device) {
    std::ostringstream text;
    text.precision(1);
    text << device.name << ", " << std::fixed
         << static_cast<double>(device.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0)
         << " GiB, compute " << device.compute_major << "." << device.compute_minor;
    return text.str();
}

std::string_view cuda_error_kind_name(CudaErrorKind kind) {
    switch (kind) {
        case CudaErrorKind::not_built:
            return "not built";
        case CudaErrorKind::module_missing:
            return "module missing";
        case CudaErrorKind::library_missing:
            return "library missing";
        case CudaErrorKind::no_driver:
            return "no driver";
        case CudaErrorKind::driver_too_old:
            return "driver too old";
        case CudaErrorKind::no_device:
            return "no device";
        case CudaErrorKind::no_kernel_image:
            return "no kernel image";
        case CudaErrorKind::out_of_memory:
            return "out of memory";
        case CudaErrorKind::runtime:
            return "runtime";
    }
    return "runtime";
}

}  // namespace earshot::backend
