// CudaDeviceModel's decoder caches (f16): allocated once per model for the most rows they held,
// so later windows keep their addresses and replay their captured graphs; rows gathered in place
// for a new batch (beam expansion and reordering); the cross caches, which only listen writes,
// kept once for all the rows of a beam (every row attends to the same audio) and all in one
// allocation, [caches][rows][Heads, Audio, Dh], so that listen writes every one of them with one
// batched GEMM (cuda_cross_kv.cpp).
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"

namespace earshot::backend::cuda {

CudaDeviceModel::CrossCaches CudaDeviceModel::allocate_cross_caches(
    const std::vector<std::pair<std::string, int64_t>>& caches, int64_t capacity_rows) const {
    int64_t bytes = 0;
    for (const auto& [path, row_bytes] : caches) bytes += capacity_rows * row_bytes;
    CrossCaches cross;
    cross.values = DeviceBuffer(bytes, "the cross caches", model_name_);
    cross.capacity_rows = capacity_rows;
    int64_t offset = 0;
    for (const auto& [path, row_bytes] : caches) {
        cross.at[path] = cross.values.as<std::byte>() + offset;
        offset += capacity_rows * row_bytes;
    }
    return cross;
}

std::vector<std::pair<std::string, int64_t>> CudaDeviceModel::cross_layout() const {
    std::vector<std::pair<std::string, int64_t>> caches;
    for (const std::string& path : cross_order_) {
        caches.emplace_back(path, states_.at(path).row_bytes());
    }
    return caches;
}

void CudaDeviceModel::copy_rows(const State& state, std::byte* to,
                                std::span<const int64_t> source) {
    const int64_t row_bytes = state.row_bytes();
    for (size_t r = 0; r < source.size(); ++r) {
        CUDA_CHECK(cudaMemcpyAsync(
            to + static_cast<int64_t>(r) * row_bytes, state.values + source[r] * row_bytes,
            static_cast<size_t>(row_bytes), cudaMemcpyDeviceToDevice, stream_));
    }
}

void CudaDeviceModel::adopt_cross_caches(CrossCaches caches) {
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // the copies out of the old allocation done
    for (const std::string& path : cross_order_) {
        State& state = states_.at(path);
        state.values = caches.at.at(path);
        state.capacity_rows = caches.capacity_rows;
    }
    cross_caches_ = std::move(caches.values);
}

void CudaDeviceModel::set_states(const std::vector<StateSpec>& states) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    // A cache keeps its buffer when it has room for the rows (an earlier beam's rows): its address
    // stays, and the graphs captured on it with it. The cross caches keep theirs when all of them
    // fit, in the same order. New buffers are all allocated before any cache changes, so running
    // out of memory leaves every cache as it was.
    std::vector<DeviceBuffer> grown(states.size());  // [states]: empty where the old one fits
    std::vector<std::pair<std::string, int64_t>> cross_caches;  // [cross] path, row bytes
    int64_t cross_rows = 0;
    bool cross_fit = true;
    for (size_t i = 0; i < states.size(); ++i) {
        const StateSpec& spec = states[i];
        const int64_t row_elements = spec.elements / spec.rows;
        const bool cross = spec.sharing == StateRows::shareable;
        const auto found = states_.find(spec.path);
        const bool fits = found != states_.end() && found->second.cross == cross &&
                          found->second.row_elements == row_elements &&
                          found->second.capacity_rows >= spec.rows;
        if (cross) {
            cross_caches.emplace_back(spec.path, row_elements * kCacheValueBytes);
            cross_rows = std::max(cross_rows, spec.rows);
            cross_fit = cross_fit && fits;
        } else if (!fits) {
            grown[i] = DeviceBuffer(spec.elements * kCacheValueBytes, "the cache " + spec.path,
                                    model_name_);
        }
    }
    std::vector<std::string> cross_order;
    for (const auto& [path, row_bytes] : cross_caches) cross_order.push_back(path);
    cross_fit = cross_fit && cross_order == cross_order_;
    CrossCaches cross_grown;
    if (!cross_fit) cross_grown = allocate_cross_caches(cross_caches, cross_rows);
    std::unordered_map<std::string, State> next;
    for (size_t i = 0; i < states.size(); ++i) {
        const StateSpec& spec = states[i];
        State state;
        state.cross = spec.sharing == StateRows::shareable;
        if (state.cross && !cross_fit) {
            state.values = cross_grown.at.at(spec.path);
            state.capacity_rows = cross_grown.capacity_rows;
        } else if (grown[i].get() != nullptr) {
            state.own = std::move(grown[i]);
            state.values = state.own.as<std::byte>();
            state.capacity_rows = spec.rows;
        } else {
            State& old = states_.at(spec.path);
            state.own = std::move(old.own);
            state.values = old.values;
            state.capacity_rows = old.capacity_rows;
        }
        state.row_elements = spec.elements / spec.rows;
        state.rows = spec.rows;
        state.shareable = state.cross && !old_kernels_.cross_caches;
        CUDA_CHECK(cudaMemsetAsync(state.values, 0,
                                   static_cast<size_t>(spec.elements * kCacheValueBytes), stream_));
        next[spec.path] = std::move(state);
    }
    states_ = std::move(next);
    if (!cross_fit) {
        cross_caches_ = std::move(cross_grown.values);
        cross_order_ = std::move(cross_order);
    }
}

void CudaDeviceModel::gather_in_place(State& state, std::span<const int64_t> source, int64_t batch,
                                      int64_t rows) {
    const int64_t row_bytes = state.row_bytes();
    std::byte* values = state.values;
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
    // into new memory: a buffer of its own, or for a cross cache a new allocation of all the
    // cross caches, which all move. Everything is allocated before any cache changes: running out
    // of memory half way leaves each cache as it was.
    struct Move {
        const std::string* path = nullptr;
        State* state = nullptr;
        bool share = false;
        DeviceBuffer grown;       // a self-attention cache's new buffer
        std::byte* to = nullptr;  // where its rows go; null: in place
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
    bool cross_grows = false;
    for (auto& [path, state] : states_) {
        Move move;
        move.path = &path;
        move.state = &state;
        move.share = state.shared || (state.shareable && one_source);
        if (!move.share && state.capacity_rows < rows) {
            if (state.cross) {
                cross_grows = true;
            } else {
                move.grown =
                    DeviceBuffer(state.row_bytes() * rows, "the cache " + path, model_name_);
                move.to = move.grown.as<std::byte>();
            }
        } else if (!move.share) {
            spare_bytes = std::max(spare_bytes, moved_rows * state.row_bytes());
        }
        moves.push_back(std::move(move));
    }
    CrossCaches cross;
    if (cross_grows) {
        cross = allocate_cross_caches(cross_layout(), rows);
        for (Move& move : moves) {
            if (move.state->cross) move.to = cross.at.at(*move.path);
        }
    }
    if (spare_bytes > reorder_spare_.bytes()) {
        DeviceBuffer spare(spare_bytes, "the caches' reorder space", model_name_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));  // the old spare may still be read
        reorder_spare_ = std::move(spare);
    }
    for (Move& move : moves) {
        State& state = *move.state;
        if (move.share) {
            // One copy for every row: row 0 becomes the source row's values.
            const int64_t from = state.shared ? 0 : source[0];
            if (move.to != nullptr) {
                copy_rows(state, move.to, std::span<const int64_t>(&from, 1));
            } else if (from != 0) {
                CUDA_CHECK(cudaMemcpyAsync(state.values, state.values + from * state.row_bytes(),
                                           static_cast<size_t>(state.row_bytes()),
                                           cudaMemcpyDeviceToDevice, stream_));
            }
            state.shared = true;
        } else if (move.to != nullptr) {
            copy_rows(state, move.to, source.first(static_cast<size_t>(rows)));
        } else {
            gather_in_place(state, source, batch, rows);
        }
    }
    // The old buffers of moved caches are freed once the copies out of them are done.
    if (std::any_of(moves.begin(), moves.end(),
                    [](const Move& move) { return move.grown.get() != nullptr; })) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    for (Move& move : moves) {
        if (move.grown.get() != nullptr) {
            move.state->own = std::move(move.grown);
            move.state->values = move.to;
            move.state->capacity_rows = rows;
        }
        move.state->rows = rows;
    }
    if (cross_grows) adopt_cross_caches(std::move(cross));
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
        if (state.capacity_rows < state.rows && state.cross) {
            // Every cross cache moves to an allocation with room for the rows: a shared one
            // takes its one row, the others their rows.
            CrossCaches cross = allocate_cross_caches(cross_layout(), state.rows);
            for (const std::string& other : cross_order_) {
                const State& moved = states_.at(other);
                std::vector<int64_t> rows(static_cast<size_t>(moved.shared ? 1 : moved.rows));
                std::iota(rows.begin(), rows.end(), int64_t{0});
                copy_rows(moved, cross.at.at(other), rows);
            }
            adopt_cross_caches(std::move(cross));
        } else if (state.capacity_rows < state.rows) {
            DeviceBuffer grown(state.row_bytes() * state.rows, "the cache " + path, model_name_);
            CUDA_CHECK(cudaMemcpyAsync(grown.get(), state.values,
                                       static_cast<size_t>(state.row_bytes()),
                                       cudaMemcpyDeviceToDevice, stream_));
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            state.own = std::move(grown);
            state.values = state.own.as<std::byte>();
            state.capacity_rows = state.rows;
        }
        gather_in_place(state, source, 1, state.rows);
        state.shared = false;
    }
}

int64_t CudaDeviceModel::device_bytes() const {
    int64_t total = workspace_.bytes() + kept_attention_.bytes() + reorder_spare_.bytes() +
                    cross_caches_.bytes();
    for (const auto& [path, param] : params_) {
        total += param.f16.bytes() + param.f32.bytes() + param.blocks.bytes();
    }
    for (const auto& [path, state] : states_) total += state.own.bytes();
    for (const auto& [path, weights] : qkv_weights_) total += weights.bytes();
    for (const auto& [path, weights] : cross_kv_weights_) total += weights.values.bytes();
    return total;
}

}  // namespace earshot::backend::cuda
