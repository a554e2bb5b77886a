// The CPU kernels' thread pool: every index of a call is handed out exactly once, whatever the
// size and grain, in ranges aligned to the grain whatever the number of threads, and two threads
// calling one pool at the same time (a model decoding on the Live page while another transcribes a
// file) each get their own indices, all of them, once; a body that throws reaches the caller.
#include "backend/cpu/cpu_threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
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

// Runs one call whose caller, in its first range, waits (up to 5 s) for a worker to enter one;
// a worker's range runs `on_worker`. Returns whether a worker took part.
bool call_with_a_worker(cpu::ThreadPool& pool, const std::function<void()>& on_worker) {
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> worker_in{false};
    pool.parallel_for(1000, 8, [&](int64_t, int64_t) {
        if (std::this_thread::get_id() != caller) {
            worker_in = true;
            on_worker();
            return;
        }
        for (int i = 0; i < 5000 && !worker_in; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    return worker_in;
}

// A body that throws on a worker: the caller gets the exception once every thread has left the
// call. One that throws on the caller: the pool's workers still take part in the next call.
TEST(CpuThreadPool, AThrowingBodyReachesTheCallerAndThePoolGoesOn) {
    cpu::ThreadPool pool(3);
    for (int round = 0; round < 20; ++round) {
        bool caught = false;
        try {
            call_with_a_worker(pool, [] { throw std::runtime_error("on a worker"); });
        } catch (const std::runtime_error& error) {
            caught = true;
            EXPECT_EQ(std::string(error.what()), "on a worker");
        }
        EXPECT_TRUE(caught) << "round " << round;

        EXPECT_THROW(
            pool.parallel_for(
                1000, 8, [](int64_t, int64_t) { throw std::invalid_argument("on any thread"); }),
            std::invalid_argument);
        EXPECT_TRUE(call_with_a_worker(pool, [] {})) << "round " << round;
        const std::vector<int> counts = visits(pool, 1000, 8);
        EXPECT_EQ(std::count(counts.begin(), counts.end(), 1), 1000) << "round " << round;
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

TEST(CpuThreadPool, UseNamesTheCurrentPoolOnItsThreadOnly) {
    cpu::ThreadPool own(3);
    cpu::ThreadPool other(2);
    EXPECT_EQ(&cpu::ThreadPool::current(), &cpu::ThreadPool::shared());
    {
        const cpu::ThreadPool::Use use(&own);
        EXPECT_EQ(&cpu::ThreadPool::current(), &own);
        {
            const cpu::ThreadPool::Use inner(&other);
            EXPECT_EQ(&cpu::ThreadPool::current(), &other);
            const cpu::ThreadPool::Use shared(nullptr);
            EXPECT_EQ(&cpu::ThreadPool::current(), &cpu::ThreadPool::shared());
        }
        EXPECT_EQ(&cpu::ThreadPool::current(), &own);
        // Another thread (a second model decoding) still gets the shared pool.
        const cpu::ThreadPool* elsewhere = nullptr;
        std::thread([&] { elsewhere = &cpu::ThreadPool::current(); }).join();
        EXPECT_EQ(elsewhere, &cpu::ThreadPool::shared());
    }
    EXPECT_EQ(&cpu::ThreadPool::current(), &cpu::ThreadPool::shared());
}

}  // namespace
