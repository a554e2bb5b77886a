// The CPU emulation of CUDA's asynchronous copies into shared memory (<cuda_pipeline.h>): each
// thread's copies wait in commit groups and land only when __pipeline_wait_prior lets them, so a
// kernel that reads a tile before waiting for it reads the NaN bytes shared memory starts with.
// Every copy checks what a GPU requires of a 16-byte cp.async: both addresses 16-byte aligned.
#pragma once

#include <cstddef>

#include "cuda_runtime.h"

namespace earshot::cuda_emulator {
void pipeline_copy(void* shared, const void* global, size_t bytes);
void pipeline_commit();
void pipeline_wait_prior(size_t pending_groups);
}  // namespace earshot::cuda_emulator

inline void __pipeline_memcpy_async(void* shared, const void* global, size_t bytes,
                                    size_t /*zero_fill*/ = 0) {
    ::earshot::cuda_emulator::pipeline_copy(shared, global, bytes);
}
inline void __pipeline_commit() { ::earshot::cuda_emulator::pipeline_commit(); }
inline void __pipeline_wait_prior(size_t pending_groups) {
    ::earshot::cuda_emulator::pipeline_wait_prior(pending_groups);
}
