// ThreadPool: a generation counter wakes the workers (spin, then futex wait via
// std::atomic::wait); chunks are claimed with fetch_add; a worker joins a call by counting
// itself in `active_` and checking the call is not closed (both sequentially consistent, so
// either the caller sees it and waits, or it sees the call closed and leaves).
#include "cpu_threads.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace earshot::backend::cpu {

namespace {

// Polls before sleeping: long enough to bridge the gap between the ops of one decoder step
// (a few microseconds), short enough that an idle pool gives its cores back within ~50 us.
constexpr int kSpinPolls = 4000;
// Chunks per thread: small enough that a delayed thread's share is picked up by the others.
constexpr int64_t kChunksPerThread = 8;

// The pool a ThreadPool::Use names on this thread; null: the shared one.
thread_local ThreadPool* t_current_pool = nullptr;

inline void cpu_relax() {
#if defined(__x86_64__)
    _mm_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    for (int i = 1; i < std::max(threads, 1); ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    for (auto& worker : workers_) worker.join();
}

ThreadPool& ThreadPool::shared() {
    static ThreadPool pool(shared_threads());
    return pool;
}

ThreadPool& ThreadPool::current() { return t_current_pool != nullptr ? *t_current_pool : shared(); }

ThreadPool::Use::Use(ThreadPool* pool) : previous_(std::exchange(t_current_pool, pool)) {}

ThreadPool::Use::~Use() { t_current_pool = previous_; }

int ThreadPool::shared_threads() {
    if (const char* value = std::getenv("EARSHOT_CPU_THREADS")) {
        const int threads = std::atoi(value);
        if (threads > 0) return threads;
    }
    return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

void ThreadPool::run_chunks() {
    while (true) {
        const int64_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
        if (begin >= n_) return;
        try {
            (*body_)(begin, std::min(n_, begin + chunk_));
        } catch (...) {
            // The first failure goes back to the caller; the chunks not yet claimed are skipped.
            next_.store(n_, std::memory_order_relaxed);
            const std::lock_guard lock(failure_mutex_);
            if (!failure_) failure_ = std::current_exception();
            return;
        }
    }
}

void ThreadPool::work() {
    uint32_t seen = 0;
    while (true) {
        uint32_t now = generation_.load(std::memory_order_acquire);
        for (int poll = 0; now == seen && poll < kSpinPolls; ++poll) {
            cpu_relax();
            now = generation_.load(std::memory_order_acquire);
        }
        while (now == seen) {
            generation_.wait(seen, std::memory_order_acquire);
            now = generation_.load(std::memory_order_acquire);
        }
        seen = now;
        if (stop_.load(std::memory_order_acquire)) return;
        active_.fetch_add(1);
        // Only while the call it woke for is open: a worker the OS delayed past that call's end,
        // and past the start of the next, would otherwise read the next call's range as the
        // caller writes it. Generations wrap; their difference does not.
        if (static_cast<int32_t>(closed_.load() - now) < 0) run_chunks();
        if (active_.fetch_sub(1) == 1) active_.notify_one();
    }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t)>& body) {
    grain = std::max<int64_t>(grain, 1);
    // A second caller while a call runs (two models decoding on two threads) does its own work
    // alone rather than share, or wait for, the workers.
    if (workers_.empty() || n < 2 * grain || busy_.exchange(true, std::memory_order_acquire)) {
        if (n > 0) body(0, n);
        return;
    }
    body_ = &body;
    n_ = n;
    // Whole multiples of the grain: every range starts at a multiple of it, whatever the number
    // of threads (a kernel that blocks rows by its grain computes each row the same way on any
    // machine).
    const int64_t share = (n + size() * kChunksPerThread - 1) / (size() * kChunksPerThread);
    chunk_ = (std::max(grain, share) + grain - 1) / grain * grain;
    next_.store(0, std::memory_order_relaxed);
    const uint32_t call = generation_.fetch_add(1) + 1;
    generation_.notify_all();
    run_chunks();
    closed_.store(call);
    int32_t inside = active_.load();
    for (int poll = 0; inside != 0 && poll < kSpinPolls; ++poll) {
        cpu_relax();
        inside = active_.load();
    }
    while (inside != 0) {
        active_.wait(inside);
        inside = active_.load();
    }
    std::exception_ptr failure;
    {
        const std::lock_guard lock(failure_mutex_);
        failure = std::exchange(failure_, nullptr);
    }
    busy_.store(false, std::memory_order_release);
    if (failure) std::rethrow_exception(failure);
}

}  // namespace earshot::backend::cpu
