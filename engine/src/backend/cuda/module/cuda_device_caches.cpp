// CudaDeviceModel's decoder caches (f16): allocated once per model for the most rows they held,
// so later windows keep their addresses and replay their captured graphs; rows gathered in place
// for a new batch (beam expansion and reordering); the cross caches, which only listen writes,
// kept once for all the rows of a beam (every row attends to the same audio).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"

namespace earshot::backend::cuda {

void CudaDeviceModel::set_states(const std::vector<StateSpec>& states) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    // A cache keeps its buffer when it has room for the rows (an earlier beam's rows): its address
    // stays, and the graphs captured on it with it. New buffers are all allocated before any
    // cache changes, so running out of memory leaves every cache as it was.
    std::vector<DeviceBuffer> grown(states.size());  // [states]: empty where the old one fits
    for (size_t i = 0; i < states.size(); ++i) {
        const StateSpec& spec = states[i];
        const int64_t row_elements = spec.elements / spec.rows;
        const auto found = states_.find(spec.path);
        const bool fits = found != states_.end() && found->second.row_elements == row_elements &&
                          found->second.capacity_rows() >= spec.rows;
        if (!fits) {
            grown[i] = DeviceBuffer(spec.elements * kCacheValueBytes, "the cache " + spec.path,
                                    model_name_);
        }
    }
    std::unordered_map<std::string, State> next;
    for (size_t i = 0; i < states.size(); ++i) {
        const StateSpec& spec = states[i];
        State state;
        if (grown[i].get() != nullptr) {
            state.values = std::move(grown[i]);
        } else {
            state.values = std::move(states_.at(spec.path).values);
        }
        state.row_elements = spec.elements / spec.rows;
        state.rows = spec.rows;
        state.shareable = spec.sharing == StateRows::shareable && !old_kernels_.cross_caches;
        CUDA_CHECK(cudaMemsetAsync(state.values.get(), 0,
                                   static_cast<size_t>(spec.elements * kCacheValueBytes), stream_));
        next[spec.path] = std::move(state);
    }
    states_ = std::move(next);
}

void CudaDeviceModel::gather_in_place(State& state, std::span<const int64_t> source, int64_t batch,
                                      int64_t rows) {
    const int64_t row_bytes = state.row_bytes();
    auto* values = state.values.as<std::byte>();
    auto copy = [&](std::byte* to, const std::byte* from) {
        CUDA_CHECK(cudaMemcpyAsync(to, from, static_cast<size_t>(row_bytes),
                                   cudaMemcpyDeviceToDevice, stream_));
    };
    // Rows past the old batch hold nothing yet: straight from their sources, before any of
    // those changes.
    for (int64_t r = batch; r < rows; ++r) {
        copy(values + r * row_bytes, values + source[static_cast<size_t>(r)] * row_bytes);
    }
    // Moved rows inside the old batch: every source read into the spare, then written back.
    auto* spare = reorder_spare_.as<std::byte>();
    int64_t moved = 0;
    for (int64_t r = 0; r < std::min(batch, rows); ++r) {
        if (source[static_cast<size_t>(r)] == r) continue;
        copy(spare + moved++ * row_bytes, values + source[static_cast<size_t>(r)] * row_bytes);
    }
    moved = 0;
    for (int64_t r = 0; r < std::min(batch, rows); ++r) {
        if (source[static_cast<size_t>(r)] == r) continue;
        copy(values + r * row_bytes, spare + moved++ * row_bytes);
    }
}

void CudaDeviceModel::gather_rows(std::span<const int64_t> source, int64_t batch, int64_t rows) {
    CUDA_CHECK(cudaSetDevice(device_));
    const bool one_source =
        std::all_of(source.begin(), source.end(), [&](int64_t s) { return s == source[0]; });
    // What each cache becomes. A shared cache stays shared (its rows are all alike, so any
    // gather gives the same rows); a shareable one whose new rows all copy one row shares it.
    // Every other cache gathers its rows: in place when it has room (reordering: always), else
    // into a new buffer. Every buffer is allocated before any cache changes: running out of
    // memory half way leaves each cache as it was.
    struct Move {
        State* state = nullptr;
        bool share = false;
        DeviceBuffer grown;  // empty: in place
    };
    std::vector<Move> moves;
    moves.reserve(states_.size());
    int64_t spare_bytes = 0;
    const int64_t moved_rows = [&] {
        int64_t n = 0;
        for (int64_t r = 0; r < std::min(batch, rows); ++r) {
            n += source[static_cast<size_t>(r)] != r ? 1 : 0;
        }
        return n;
    }();
    for (auto& [path, state] : states_) {
        Move move;
        move.state = &state;
        move.share = state.shared || (state.shareable && one_source);
        if (!move.share && state.capacity_rows() < rows) {
            move.grown = DeviceBuffer(state.row_bytes() * rows, "the cache " + path, model_name_);
        } else if (!move.share) {
            spare_bytes = std::max(spare_bytes, moved_rows * state.row_bytes());
        }
        moves.push_back(std::move(move));
    }
    if (spare_bytes > reorder_spare_.bytes()) {
        DeviceBuffer spare(spare_bytes, "the caches' reorder space", model_name_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));  // the old spare may still be read
        reorder_spare_ = std::move(spare);
    }
    for (Move& move : moves) {
        State& state = *move.state;
        const int64_t row_bytes = state.row_bytes();
        if (move.share) {
            // One copy for every row: row 0 becomes the source row's values.
            if (!state.shared && source[0] != 0) {
                CUDA_CHECK(cudaMemcpyAsync(state.values.as<std::byte>(),
                                           state.values.as<std::byte>() + source[0] * row_bytes,
                                           static_cast<size_t>(row_bytes), cudaMemcpyDeviceToDevice,
                                           stream_));
            }
            state.shared = true;
        } else if (move.grown.get() != nullptr) {
            for (int64_t r = 0; r < rows; ++r) {
                CUDA_CHECK(cudaMemcpyAsync(
                    move.grown.as<std::byte>() + r * row_bytes,
                    state.values.as<std::byte>() + source[static_cast<size_t>(r)] * row_bytes,
                    static_cast<size_t>(row_bytes), cudaMemcpyDeviceToDevice, stream_));
            }
        } else {
            gather_in_place(state, source, batch, rows);
        }
    }
    // The old buffers of grown caches are freed once the copies out of them are done.
    if (std::any_of(moves.begin(), moves.end(),
                    [](const Move& move) { return move.grown.get() != nullptr; })) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    for (Move& move : moves) {
        if (move.grown.get() != nullptr) move.state->values = std::move(move.grown);
        move.state->rows = rows;
    }
}

bool CudaDeviceModel::shares_rows(const ExecutionPlan& plan, int32_t slot) const {
    const Slot& s = plan.slots.at(static_cast<size_t>(slot));
    if (s.kind != SlotKind::state) return false;
    const auto found = states_.find(s.path);
    return found != states_.end() && found->second.shared;
}

void CudaDeviceModel::own_rows(const std::vector<std::string>& writes) {
    for (const std::string& path : writes) {
        State& state = states_.at(path);
        if (!state.shared) continue;
        // A run writing a shared cache (listen at several rows after an expansion): each row
        // gets its own copy of row 0 first. Rare, so it may allocate here.
        const std::vector<int64_t> source(static_cast<size_t>(state.rows), 0);
        if (state.capacity_rows() < state.rows) {
            DeviceBuffer grown(state.row_bytes() * state.rows, "the cache " + path, model_name_);
            CUDA_CHECK(cudaMemcpyAsync(grown.get(), state.values.get(),
                                       static_cast<size_t>(state.row_bytes()),
                                       cudaMemcpyDeviceToDevice, stream_));
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            state.values = std::move(grown);
        }
        gather_in_place(state, source, 1, state.rows);
        state.shared = false;
    }
}

int64_t CudaDeviceModel::device_bytes() const {
    int64_t total = workspace_.bytes() + kept_attention_.bytes() + reorder_spare_.bytes();
    for (const auto& [path, param] : params_) {
        total += param.f16.bytes() + param.f32.bytes() + param.blocks.bytes();
    }
    for (const auto& [path, state] : states_) total += state.values.bytes();
    for (const auto& [path, weights] : qkv_weights_) total += weights.bytes();
    for (const auto& [path, bias] : half_biases_) total += bias.bytes();
    return total;
}

}  // namespace earshot::backend::cuda
