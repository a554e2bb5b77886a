// Work on threads started for one call, for loading weights (decoding quantized blocks, copying
// matrices): not the CPU kernels' shared pool, since a model may load while another decodes on it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace earshot::base {

// Runs piece(i) for every i in [0, pieces) on up to `threads` threads (the caller is one), each
// claiming the next piece not yet taken. When a piece throws, the pieces not yet claimed are
// skipped and the first exception is rethrown once every thread has joined.
template <typename Piece>
void run_pieces(uint64_t pieces, uint64_t threads, const Piece& piece) {
    std::atomic<uint64_t> next{0};
    std::mutex failure_mutex;
    std::exception_ptr failure;
    const auto work = [&] {
        try {
            for (uint64_t i = next.fetch_add(1); i < pieces; i = next.fetch_add(1)) piece(i);
        } catch (...) {
            next.store(pieces);
            const std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> helpers;
    for (uint64_t t = 1; t < std::min(threads, pieces); ++t) helpers.emplace_back(work);
    work();
    for (auto& helper : helpers) helper.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace earshot::base
