// SpscRing: the lock-free single-producer/single-consumer ring of float samples between the
// audio callback (producer) and the audio thread (consumer).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace earshot::audio {

// A fixed-capacity ring, allocated once at construction. One thread may call write(), one other
// thread may call read(); both are wait-free and never allocate. Samples that do not fit are
// dropped and counted as overrun. Indices run freely and are reduced modulo the power-of-two
// capacity, so size() == write_index - read_index holds across wrap-around.
class SpscRing {
public:
    // Capacity is rounded up to the next power of two (at least 2).
    explicit SpscRing(std::size_t min_capacity_samples);

    SpscRing(const SpscRing&) = delete;
    SpscRing& operator=(const SpscRing&) = delete;

    // Producer side. Copies up to `count` samples; returns how many were written. The rest are
    // added to overrun_samples().
    std::size_t write(const float* samples, std::size_t count) noexcept;

    // Consumer side. Copies up to `count` samples out; returns how many were read.
    std::size_t read(float* samples, std::size_t count) noexcept;

    // Samples ready to read. Exact on the consumer thread, a snapshot elsewhere.
    std::size_t size() const noexcept;
    // Room to write. Exact on the producer thread, a snapshot elsewhere.
    std::size_t free_space() const noexcept;
    std::size_t capacity() const noexcept { return capacity_; }

    // Samples dropped by write() because the ring was full, since construction.
    std::uint64_t overrun_samples() const noexcept {
        return overrun_samples_.load(std::memory_order_relaxed);
    }

private:
    // Fixed at 64 bytes: std::hardware_destructive_interference_size varies with compiler flags
    // (GCC warns when it is used in a header), and 64 is the line size of x86-64 and most ARM64.
    static constexpr std::size_t kCacheLineBytes = 64;

    const std::size_t capacity_;  // power of two
    const std::size_t mask_;      // capacity_ - 1
    const std::unique_ptr<float[]> buffer_;

    // Written by the producer only, read by the consumer.
    alignas(kCacheLineBytes) std::atomic<std::size_t> write_index_{0};
    // Written by the consumer only, read by the producer.
    alignas(kCacheLineBytes) std::atomic<std::size_t> read_index_{0};
    // Producer only; read from any thread for display.
    alignas(kCacheLineBytes) std::atomic<std::uint64_t> overrun_samples_{0};
};

}  // namespace earshot::audio
