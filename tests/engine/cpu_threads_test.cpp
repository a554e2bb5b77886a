// The CPU kernels' thread pool: every index of a call is handed out exactly once, whatever the
// size and grain, in ranges aligned to the grain whatever the number of threads, and two threads
// calling one pool at the same time (a model decoding on the Live page while another transcribes a
// file) each get their own indices, all of them, once.
#include "backend/cpu/cpu_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

namespace cpu = earshot::backend::cpu;

// Runs one call over [0, n) and returns how often each index was visited.
std::vector<int> visits(cpu::ThreadPool& pool, int64_t n, int64_t grain) {
    std::vector<std::atomic<int>> counts(static_cast<size_t>(n));
    pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) counts[static_cast<size_t>(i)].fetch_add(1);
    });
    std::vector<int> out;
    for (const auto& count : counts) out.push_back(count.load());
    return out;
}

TEST(CpuThreadPool, EveryIndexOnceForAnySizeAndGrain) {
    cpu::ThreadPool pool(3);
    EXPECT_EQ(pool.size(), 3);
    for (const int64_t n : {0, 1, 7, 64, 129, 1000, 51865}) {
        for (const int64_t grain : {1, 16, 64, 5000}) {
            const std::vector<int> counts = visits(pool, n, grain);
            ASSERT_EQ(counts.size(), static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) {
                ASSERT_EQ(counts[static_cast<size_t>(i)], 1)
                    << "n " << n << " grain " << grain << " index " << i;
            }
        }
    }
}

// Ranges start at multiples of the grain and hold whole multiples of it (the last one the rest),
// for pools of any size: how a kernel blocks its range by the grain is the same on any machine.
TEST(CpuThreadPool, RangesAreWholeMultiplesOfTheGrainForAnyNumberOfThreads) {
    for (const int threads : {2, 3, 16}) {
        cpu::ThreadPool pool(threads);
        for (const int64_t n : {9, 384, 1203, 51865}) {
            for (const int64_t grain : {1, 4, 24}) {
                std::atomic<int> misaligned{0};
                pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
                    if (begin % grain != 0 || (end != n && (end - begin) % grain != 0)) {
                        ++misaligned;
                    }
                });
                EXPECT_EQ(misaligned.load(), 0)
                    << "threads " << threads << " n " << n << " grain " << grain;
            }
        }
    }
}

TEST(CpuThreadPool, TwoCallersAtOnceEachGetAllTheirIndicesOnce) {
    cpu::ThreadPool pool(3);
    constexpr int kCalls = 3000;
    std::atomic<int> wrong{0};
    const auto caller = [&](int64_t n) {
        for (int call = 0; call < kCalls; ++call) {
            const std::vector<int> counts = visits(pool, n, 8);
            for (const int count : counts) {
                if (count != 1) ++wrong;
            }
        }
    };
    std::thread first(caller, 384);
    std::thread second(caller, 1536);
    first.join();
    second.join();
    EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
