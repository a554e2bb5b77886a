// What the CUDA tests ask of the device: whether a CUDA test runs, skips or fails (one rule for
// every test), and the emulated device's count of CUDA graph launches.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::test {

// Why CUDA cannot run in this process (the same search the loader does), or nullopt when a
// device can be used.
inline std::optional<backend::CudaError> cuda_unavailable_error() {
    try {
        (void)backend::cuda_devices();
        return std::nullopt;
    } catch (const backend::CudaError& error) {
        return error;
    }
}

// The same as one line, "<kind>: <message>".
inline std::optional<std::string> cuda_unavailable() {
    const std::optional<backend::CudaError> error = cuda_unavailable_error();
    if (!error) return std::nullopt;
    return std::string(backend::cuda_error_kind_name(error->kind())) + ": " + error->what();
}

enum class CudaTestVerdict { run, skip, fail };

struct CudaTestGate {
    CudaTestVerdict verdict = CudaTestVerdict::run;
    std::string reason;  // empty when the test runs
};

// True when EARSHOT_REQUIRE_CUDA=1: a run that must reach a GPU (tests/gpu/session.sh, and the
// emulated ctest entries) fails where a CUDA test would otherwise skip.
inline bool cuda_required() {
    const char* value = std::getenv("EARSHOT_REQUIRE_CUDA");
    return value != nullptr && std::string_view(value) == "1";
}

// The rule, from the CudaError's kind name (cuda_error_kind_name) and message. A CUDA test skips
// only on a machine without a driver or a device, or in a build configured without the CUDA
// backend (EARSHOT_CUDA=OFF: the sanitizer builds); any other kind (a module that is missing,
// does not load, lacks its entry point or a kernel for this GPU, ...) is a broken build and fails.
// With EARSHOT_REQUIRE_CUDA=1 every kind fails.
inline CudaTestGate cuda_test_gate_for(std::string_view kind, std::string_view message) {
    using backend::cuda_error_kind_name;
    using backend::CudaErrorKind;
    const std::string why =
        "CUDA is not usable (" + std::string(kind) + ": " + std::string(message) + ")";
    const bool may_skip = kind == cuda_error_kind_name(CudaErrorKind::no_driver) ||
                          kind == cuda_error_kind_name(CudaErrorKind::no_device) ||
                          kind == cuda_error_kind_name(CudaErrorKind::not_built);
    if (!may_skip) {
        return {CudaTestVerdict::fail, why + ": a broken build, not a machine without a GPU"};
    }
    if (cuda_required()) {
        return {CudaTestVerdict::fail, why + " and EARSHOT_REQUIRE_CUDA=1 asks for a device"};
    }
    return {CudaTestVerdict::skip, "no CUDA: " + why};
}

// The rule for this process: asks the engine for its CUDA devices.
inline CudaTestGate cuda_test_gate() {
    try {
        (void)backend::cuda_devices();
        return {};
    } catch (const backend::CudaError& error) {
        return cuda_test_gate_for(backend::cuda_error_kind_name(error.kind()), error.what());
    }
}

// The rule for a CUDA test that runs the executable: from what `earshot gpus` printed, its device
// table or one line "No CUDA device (<kind>): <message>".
inline CudaTestGate cuda_test_gate_from_gpus_output(const std::string& out) {
    const std::string first = out.substr(0, out.find('\n'));
    if (first == "  index  total_gib  free_gib  compute  name") return {};
    const std::string_view prefix = "No CUDA device (";
    const size_t close = first.find("): ");
    if (!first.starts_with(prefix) || close == std::string::npos) {
        return {CudaTestVerdict::fail,
                "`earshot gpus` printed neither devices nor a reason: " + first};
    }
    return cuda_test_gate_for(first.substr(prefix.size(), close - prefix.size()),
                              first.substr(close + 3));
}

// One of the emulated device's counts, by its hook's name (nullopt on a real GPU).
inline std::optional<size_t> emulator_count(const char* hook) {
    const char* module = std::getenv("EARSHOT_CUDA_MODULE");
    if (module == nullptr) return std::nullopt;
    void* handle = dlopen(module, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return std::nullopt;
    using Count = size_t (*)();
    auto count = reinterpret_cast<Count>(dlsym(handle, hook));
    dlclose(handle);
    if (count == nullptr) return std::nullopt;
    return count();
}

// The emulated device's count of CUDA graph launches (nullopt on a real GPU).
inline std::optional<size_t> emulator_graph_launches() {
    return emulator_count("earshot_cuda_emulator_graph_launches");
}

// The emulated device's count of CUDA graphs captured (nullopt on a real GPU).
inline std::optional<size_t> emulator_graph_captures() {
    return emulator_count("earshot_cuda_emulator_graph_captures");
}

// The emulated device's count of cublasLtMatmul calls run (nullopt on a real GPU).
inline std::optional<size_t> emulator_lt_matmuls() {
    return emulator_count("earshot_cuda_emulator_lt_matmuls");
}

// The emulated device's count of allocations made (nullopt on a real GPU).
inline std::optional<size_t> emulator_allocations_made() {
    return emulator_count("earshot_cuda_emulator_allocations_made");
}

// The emulated device's memory in use, in bytes (nullopt on a real GPU).
inline std::optional<size_t> emulator_allocated_bytes() {
    return emulator_count("earshot_cuda_emulator_allocated_bytes");
}

// The emulator's device memory hooks, or nullptr on a GPU.
struct EmulatorMemory {
    size_t (*allocated)() = nullptr;
    size_t (*set_limit)(size_t) = nullptr;
};
inline EmulatorMemory emulator_memory() {
    const char* module = std::getenv("EARSHOT_CUDA_MODULE");
    if (module == nullptr) return {};
    void* handle = dlopen(module, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return {};
    EmulatorMemory memory;
    memory.allocated =
        reinterpret_cast<size_t (*)()>(dlsym(handle, "earshot_cuda_emulator_allocated_bytes"));
    memory.set_limit = reinterpret_cast<size_t (*)(size_t)>(
        dlsym(handle, "earshot_cuda_emulator_set_memory_limit"));
    dlclose(handle);
    return memory;
}

}  // namespace earshot::test

// At the start of a CUDA test (or its SetUp): returns skipped or failed, with the reason, unless
// the test can run (cuda_test_gate_for's rule). `gate_expression` gives the CudaTestGate.
#define EARSHOT_CUDA_TEST_GATE(gate_expression)                                \
    do {                                                                       \
        const ::earshot::test::CudaTestGate earshot_gate_ = (gate_expression); \
        if (earshot_gate_.verdict == ::earshot::test::CudaTestVerdict::skip) { \
            GTEST_SKIP() << earshot_gate_.reason;                              \
        }                                                                      \
        if (earshot_gate_.verdict == ::earshot::test::CudaTestVerdict::fail) { \
            FAIL() << earshot_gate_.reason;                                    \
        }                                                                      \
    } while (false)

// The usual case: this process's CUDA devices.
#define EARSHOT_NEEDS_CUDA_DEVICE() EARSHOT_CUDA_TEST_GATE(::earshot::test::cuda_test_gate())
