// SpscRing: copies in and out of the ring with acquire/release ordering on the two indices.
#include "earshot/audio/spsc_ring.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace earshot::audio {

namespace {

std::size_t round_up_capacity(std::size_t min_capacity_samples) {
    return std::bit_ceil(std::max<std::size_t>(min_capacity_samples, 2));
}

}  // namespace

SpscRing::SpscRing(std::size_t min_capacity_samples)
    : capacity_(round_up_capacity(min_capacity_samples)),
      mask_(capacity_ - 1),
      buffer_(new float[capacity_]()) {}

std::size_t SpscRing::write(const float* samples, std::size_t count) noexcept {
    // Only this thread writes write_index_, so a relaxed load sees its own latest value.
    const std::size_t write_index = write_index_.load(std::memory_order_relaxed);
    // Acquire: the consumer's reads of the slots it freed happen before we overwrite them.
    const std::size_t read_index = read_index_.load(std::memory_order_acquire);
    const std::size_t room = capacity_ - (write_index - read_index);
    const std::size_t n = std::min(count, room);
    if (n < count) {
        overrun_samples_.fetch_add(count - n, std::memory_order_relaxed);
    }
    if (n == 0) {
        return 0;
    }
    const std::size_t start = write_index & mask_;
    const std::size_t first = std::min(n, capacity_ - start);
    std::memcpy(buffer_.get() + start, samples, first * sizeof(float));
    std::memcpy(buffer_.get(), samples + first, (n - first) * sizeof(float));
    // Release: the copied samples are visible before the consumer sees the new index.
    write_index_.store(write_index + n, std::memory_order_release);
    return n;
}

std::size_t SpscRing::read(float* samples, std::size_t count) noexcept {
    const std::size_t read_index = read_index_.load(std::memory_order_relaxed);
    // Acquire: pairs with the producer's release, so the samples up to write_index are visible.
    const std::size_t write_index = write_index_.load(std::memory_order_acquire);
    const std::size_t n = std::min(count, write_index - read_index);
    if (n == 0) {
        return 0;
    }
    const std::size_t start = read_index & mask_;
    const std::size_t first = std::min(n, capacity_ - start);
    std::memcpy(samples, buffer_.get() + start, first * sizeof(float));
    std::memcpy(samples + first, buffer_.get(), (n - first) * sizeof(float));
    // Release: our copies out finish before the producer may reuse these slots.
    read_index_.store(read_index + n, std::memory_order_release);
    return n;
}

std::size_t SpscRing::size() const noexcept {
    const std::size_t read_index = read_index_.load(std::memory_order_acquire);
    const std::size_t write_index = write_index_.load(std::memory_order_acquire);
    // From a third thread both indices may move between the loads; keep the answer in range.
    return std::min(write_index - read_index, capacity_);
}

std::size_t SpscRing::free_space() const noexcept { return capacity_ - size(); }

}  // namespace earshot::audio
