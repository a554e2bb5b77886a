// What the tests, which load the emulated module by path, ask it directly: kernels run, device
// memory in use and its limit, graphs captured and replayed.
#include <cstddef>

#include "cuda_runtime.h"
#include "emulator_state.h"

// For the tests, which load this module by path: how many kernels ran (see g_kernel_runs).
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_kernel_runs() {
    return earshot::cuda_emulator::g_kernel_runs.load();
}

// For the tests, which load this module by path: the grids run launched dependent and plainly.
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_dependent_grids() {
    return earshot::cuda_emulator::g_dependent_grids.load();
}
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_plain_grids() {
    return earshot::cuda_emulator::g_plain_grids.load();
}

// For the tests, which load this module by path: the bytes copied from the device to the host.
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_bytes_to_host() {
    return earshot::cuda_emulator::g_bytes_to_host.load();
}

// For the tests, which load this module by path: the bytes copied from the host to the device,
// and those of them copied from pageable (not pinned) host memory.
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_bytes_to_device() {
    return earshot::cuda_emulator::g_bytes_to_device.load();
}
extern "C" __attribute__((visibility("default"))) size_t
earshot_cuda_emulator_pageable_bytes_to_device() {
    return earshot::cuda_emulator::g_pageable_bytes_to_device.load();
}

// For the tests, which load this module by path: cuBLASLt's heuristic queries, and the distinct
// GEMMs cublasLtMatmul ran on handles still open.
extern "C" __attribute__((visibility("default"))) size_t
earshot_cuda_emulator_lt_heuristic_queries() {
    return earshot::cuda_emulator::g_lt_heuristic_queries.load();
}
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_lt_distinct_gemms() {
    return earshot::cuda_emulator::lt_distinct_gemms();
}

// For the tests, which load this module by path: cublasLtMatmul calls run (replays included).
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_lt_matmuls() {
    return earshot::cuda_emulator::g_lt_matmuls.load();
}

// For the tests, which load this module by path: the device allocations made so far.
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_allocations_made() {
    return earshot::cuda_emulator::g_allocations_made.load();
}

// For the tests, which load this module by path: the device memory in use, and a new size of the
// device (returning the old one), to run out of memory at a chosen point.
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_allocated_bytes() {
    return earshot::cuda_emulator::allocated_bytes();
}
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_set_memory_limit(
    size_t bytes) {
    const size_t before = earshot::cuda_emulator::g_memory_limit;
    earshot::cuda_emulator::set_memory_limit(bytes);
    return before;
}

// For the tests, which load this module by path: how many graphs were captured and replayed.
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_graph_launches() {
    return earshot::cuda_emulator::graph_launches();
}
extern "C" __attribute__((visibility("default"))) size_t earshot_cuda_emulator_graph_captures() {
    return earshot::cuda_emulator::graph_captures();
}
