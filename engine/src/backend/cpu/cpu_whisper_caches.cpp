// CpuWhisper's decoder caches: allocated per layer, f32 or f16, rows gathered for a new batch
// (an audio cache over one row kept once, shared by every row), and copied before a plan writes.
#include <malloc.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/cpu_whisper_impl.h"

namespace earshot::backend {

namespace {

bool is_cross_cache(const std::string& path) {
    return path.ends_with("cross_k") || path.ends_with("cross_v");
}

}  // namespace

void CpuWhisper::Impl::State::copy_row(int64_t from, cpu::CacheBuffer& into, int64_t to) const {
    const int64_t head_bytes = positions * dh * value_bytes;
    for (int64_t h = 0; h < heads; ++h) {
        std::memcpy(into.data() + to * row_bytes() + h * head_bytes,
                    values.data() + from * row_bytes() + h * head_bytes,
                    static_cast<size_t>(filled * dh * value_bytes));
    }
}

void CpuWhisper::Impl::allocate_states() {
    states.clear();
    for (const CacheShape& cache : plans.cache_shapes(batch)) {
        State& state = states[cache.path];
        state.value_bytes = cache_storage == CacheStorage::f16 ? 2 : 4;
        state.values = cpu::CacheBuffer(static_cast<size_t>(cache.elements() * state.value_bytes));
        state.heads = cache.shape.at(1);
        state.positions = cache.shape.at(2);
        state.dh = cache.shape.at(3);
    }
}

void CpuWhisper::Impl::unshare(State& state) const {
    if (!state.shared) return;
    cpu::CacheBuffer next(static_cast<size_t>(state.row_bytes() * batch));
    for (int64_t r = 0; r < batch; ++r) state.copy_row(0, next, r);
    state.values = std::move(next);
    state.shared = false;
}

void CpuWhisper::Impl::release_scratch() {
    // Swapped with empty vectors: `arena = {}` would assign an empty list and keep the capacity
    // (the encoder's 51 MiB arena and 22 MiB conv scratch for large-v3, resident while decoding).
    std::vector<float>().swap(arena);
    std::vector<float>().swap(conv_scratch);
    // glibc raises its mmap threshold each time a mapped block is freed (up to 32 MiB), so the
    // encoder's later intermediates come from the heaps; freed, they stay resident behind any live
    // block above them. malloc_trim gives their whole pages back (base q5_0 beam 5: the main heap
    // held 50 MiB at the peak).
    malloc_trim(0);
}

void CpuWhisper::Impl::reorder_in_place(State& state, std::span<const int64_t> source) {
    // The written positions of every row another row takes are saved first (a reorder may swap
    // rows), then copied over the rows that take them: the cache's pages are written in place,
    // where a new buffer per step would have the kernel zero and fault in every page again.
    const int64_t head_bytes = state.positions * state.dh * state.value_bytes;
    const auto filled_bytes = static_cast<size_t>(state.filled * state.dh * state.value_bytes);
    const size_t saved_row_bytes = filled_bytes * static_cast<size_t>(state.heads);
    std::vector<int64_t> saved;  // source rows, in the order of their slots in gather_scratch
    for (int64_t r = 0; r < batch; ++r) {
        const int64_t from = source[static_cast<size_t>(r)];
        if (from != r && std::find(saved.begin(), saved.end(), from) == saved.end()) {
            saved.push_back(from);
        }
    }
    if (saved.empty() || filled_bytes == 0) return;
    gather_scratch.resize(saved.size() * saved_row_bytes);
    for (size_t i = 0; i < saved.size(); ++i) {
        const std::byte* row = state.values.data() + saved[i] * state.row_bytes();
        for (int64_t h = 0; h < state.heads; ++h) {
            std::memcpy(
                gather_scratch.data() + i * saved_row_bytes + static_cast<size_t>(h) * filled_bytes,
                row + h * head_bytes, filled_bytes);
        }
    }
    for (int64_t r = 0; r < batch; ++r) {
        const int64_t from = source[static_cast<size_t>(r)];
        if (from == r) continue;
        const auto slot =
            static_cast<size_t>(std::find(saved.begin(), saved.end(), from) - saved.begin());
        std::byte* row = state.values.data() + r * state.row_bytes();
        for (int64_t h = 0; h < state.heads; ++h) {
            std::memcpy(row + h * head_bytes,
                        gather_scratch.data() + slot * saved_row_bytes +
                            static_cast<size_t>(h) * filled_bytes,
                        filled_bytes);
        }
    }
}

void CpuWhisper::Impl::gather_rows(std::span<const int64_t> source, int64_t rows) {
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t from = source[static_cast<size_t>(r)];
        if (from < 0 || from >= batch) {
            throw std::out_of_range("row " + std::to_string(from) + " of a batch of " +
                                    std::to_string(batch));
        }
    }
    const bool one_source = std::all_of(source.begin(), source.begin() + rows,
                                        [&](int64_t from) { return from == source[0]; });
    for (auto& [path, state] : states) {
        if (state.shared) continue;  // every row is the same row, whatever the order
        if (is_cross_cache(path) && one_source) {
            cpu::CacheBuffer kept(static_cast<size_t>(state.row_bytes()));
            state.copy_row(source[0], kept, 0);
            state.values = std::move(kept);
            state.shared = rows > 1;
            continue;
        }
        if (rows == batch) {
            reorder_in_place(state, source);
            continue;
        }
        cpu::CacheBuffer next(static_cast<size_t>(state.row_bytes() * rows));
        for (int64_t r = 0; r < rows; ++r) {
            state.copy_row(source[static_cast<size_t>(r)], next, r);
        }
        state.values = std::move(next);
    }
    batch = rows;
    binding.values.dims["Batch"] = rows;
    if (rows == 1) {
        for (auto& entry : states) entry.second.shared = false;
    }
}

}  // namespace earshot::backend
