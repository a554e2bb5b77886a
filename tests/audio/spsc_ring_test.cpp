// Tests for SpscRing: capacity, wrap-around, exact overrun counts, and a two-thread stream.
#include "earshot/audio/spsc_ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

namespace earshot::audio {
namespace {

std::vector<float> iota_samples(std::size_t count, float first) {
    std::vector<float> samples(count);
    std::iota(samples.begin(), samples.end(), first);
    return samples;
}

TEST(SpscRing, CapacityRoundsUpToPowerOfTwo) {
    EXPECT_EQ(SpscRing(1).capacity(), 2u);
    EXPECT_EQ(SpscRing(8).capacity(), 8u);
    EXPECT_EQ(SpscRing(9).capacity(), 16u);
    EXPECT_EQ(SpscRing(1000).capacity(), 1024u);
}

TEST(SpscRing, StartsEmpty) {
    SpscRing ring(16);
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_EQ(ring.free_space(), 16u);
    EXPECT_EQ(ring.overrun_samples(), 0u);
    std::array<float, 4> out{};
    EXPECT_EQ(ring.read(out.data(), out.size()), 0u);
}

TEST(SpscRing, WrapsAroundKeepingOrder) {
    SpscRing ring(8);
    const std::vector<float> first = iota_samples(6, 0.0f);
    ASSERT_EQ(ring.write(first.data(), first.size()), 6u);
    std::array<float, 8> out{};
    ASSERT_EQ(ring.read(out.data(), 5), 5u);
    EXPECT_EQ(out[4], 4.0f);
    EXPECT_EQ(ring.size(), 1u);

    // Slots 6, 7 then 0..4: this write crosses the end of the buffer.
    const std::vector<float> second = iota_samples(7, 6.0f);
    ASSERT_EQ(ring.write(second.data(), second.size()), 7u);
    EXPECT_EQ(ring.size(), 8u);
    EXPECT_EQ(ring.free_space(), 0u);

    // This read crosses the end too.
    ASSERT_EQ(ring.read(out.data(), out.size()), 8u);
    for (std::size_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i], static_cast<float>(5 + i)) << "at " << i;
    }
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_EQ(ring.overrun_samples(), 0u);
}

TEST(SpscRing, PartialReadReturnsWhatIsThere) {
    SpscRing ring(8);
    const std::vector<float> in = iota_samples(3, 1.0f);
    ring.write(in.data(), in.size());
    std::array<float, 8> out{};
    EXPECT_EQ(ring.read(out.data(), out.size()), 3u);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[2], 3.0f);
}

TEST(SpscRing, CountsOverrunExactly) {
    SpscRing ring(8);
    const std::vector<float> in = iota_samples(13, 0.0f);
    EXPECT_EQ(ring.write(in.data(), in.size()), 8u);
    EXPECT_EQ(ring.overrun_samples(), 5u);
    EXPECT_EQ(ring.write(in.data(), 4), 0u);
    EXPECT_EQ(ring.overrun_samples(), 9u);

    std::array<float, 3> out{};
    ASSERT_EQ(ring.read(out.data(), out.size()), 3u);
    EXPECT_EQ(ring.write(in.data(), 5), 3u);
    EXPECT_EQ(ring.overrun_samples(), 11u);

    // What was kept is the oldest data, in order; dropped samples never appear.
    std::array<float, 8> rest{};
    ASSERT_EQ(ring.read(rest.data(), rest.size()), 8u);
    const std::array<float, 8> expected{3, 4, 5, 6, 7, 0, 1, 2};
    EXPECT_EQ(rest, expected);
}

TEST(SpscRing, ZeroLengthCallsChangeNothing) {
    SpscRing ring(4);
    EXPECT_EQ(ring.write(nullptr, 0), 0u);
    EXPECT_EQ(ring.read(nullptr, 0), 0u);
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_EQ(ring.overrun_samples(), 0u);
}

// A producer and a consumer thread move a few million samples in odd chunk sizes through a small
// ring. The producer retries what did not fit, so nothing may be lost: every sample must arrive
// exactly once and in order. Overruns are still counted for the rejected parts.
TEST(SpscRing, TwoThreadsDeliverExactSequence) {
    constexpr std::uint32_t kTotal = 3'000'017;
    SpscRing ring(1024);

    // Values stay below 2^24 so every integer is exact as a float.
    static_assert(kTotal < (1u << 24));

    std::uint64_t rejected = 0;  // what the producer saw refused; owned by it until join()
    std::thread producer([&ring, &rejected] {
        constexpr std::array<std::size_t, 5> kChunks{7, 13, 101, 333, 1021};
        std::vector<float> chunk(1021);
        std::uint32_t next = 0;
        std::size_t turn = 0;
        while (next < kTotal) {
            const std::size_t want =
                std::min<std::size_t>(kChunks[turn++ % kChunks.size()], kTotal - next);
            for (std::size_t i = 0; i < want; ++i) {
                chunk[i] = static_cast<float>(next + i);
            }
            const std::size_t written = ring.write(chunk.data(), want);
            next += static_cast<std::uint32_t>(written);
            rejected += want - written;
            if (written == 0) {
                std::this_thread::yield();
            }
        }
    });

    std::vector<float> received;
    received.reserve(kTotal);
    constexpr std::array<std::size_t, 4> kReads{5, 77, 257, 999};
    std::vector<float> buffer(999);
    std::size_t turn = 0;
    while (received.size() < kTotal) {
        const std::size_t got = ring.read(buffer.data(), kReads[turn++ % kReads.size()]);
        received.insert(received.end(), buffer.begin(),
                        buffer.begin() + static_cast<std::ptrdiff_t>(got));
        if (got == 0) {
            std::this_thread::yield();
        }
    }
    producer.join();

    ASSERT_EQ(received.size(), kTotal);
    std::size_t mismatches = 0;
    std::size_t first_mismatch = 0;
    for (std::size_t i = 0; i < kTotal; ++i) {
        if (received[i] != static_cast<float>(i)) {
            if (mismatches++ == 0) {
                first_mismatch = i;
            }
        }
    }
    EXPECT_EQ(mismatches, 0u) << "first mismatch at sample " << first_mismatch;
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_EQ(ring.overrun_samples(), rejected);
}

}  // namespace
}  // namespace earshot::audio
