// A small pool of worker threads for the CPU kernels' row loops (GEMV rows, attention heads,
// softmax rows): parallel_for splits [0, n) into chunks that the threads claim from one atomic
// counter, so a thread the OS delays leaves its share to the others instead of stalling them.
// The caller never waits for a worker that has not joined (one the OS has not run yet): it
// closes the call after its own chunks and waits only for the workers inside. Workers spin
// briefly between calls (a decoder step issues dozens within a millisecond), then sleep on a
// futex, so an idle pool costs nothing and does not fight OpenBLAS's own threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace earshot::backend::cpu {

class ThreadPool {
public:
    explicit ThreadPool(int threads);  // threads - 1 workers; the caller is the last one
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }
    // Runs body(begin, end) over disjoint ranges covering [0, n), possibly several per thread;
    // every range starts at a multiple of `grain` and holds a multiple of it (the last one what
    // is left), so how a range is blocked by its grain does not depend on the number of threads.
    // Callers on several threads may call at once: one call at a time has the workers, any other
    // runs on its caller alone. When body throws (on any thread), the ranges not yet begun are
    // skipped and the first exception is rethrown to the caller once every thread has left the
    // call; the pool stays usable.
    void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body);

    // One pool per process: EARSHOT_CPU_THREADS threads when set (a positive number), else one
    // per hardware thread.
    static ThreadPool& shared();
    static int shared_threads();

    // The pool the kernels called on this thread use: the one the innermost live Use on this
    // thread names, else shared(). A backend instance with its own thread count (CpuWhisper::
    // set_threads) runs its plans inside a Use of its own pool; everything else never sets one.
    static ThreadPool& current();

    // Names the pool current() answers on this thread while it lives (null: shared()); the one
    // it replaced comes back when it ends.
    class Use {
    public:
        explicit Use(ThreadPool* pool);
        ~Use();
        Use(const Use&) = delete;
        Use& operator=(const Use&) = delete;

    private:
        ThreadPool* previous_;
    };

private:
    void work();
    void run_chunks();

    std::vector<std::thread> workers_;
    const std::function<void(int64_t, int64_t)>* body_ = nullptr;
    int64_t n_ = 0;
    int64_t chunk_ = 1;
    alignas(64) std::atomic<int64_t> next_{0};         // the next unclaimed chunk start
    alignas(64) std::atomic<uint32_t> generation_{0};  // bumped once per parallel_for
    std::atomic<uint32_t> closed_{0};             // the last generation no worker may join any more
    alignas(64) std::atomic<int32_t> active_{0};  // workers inside the current call
    std::atomic<bool> stop_{false};
    alignas(64) std::atomic<bool> busy_{false};  // a call has the workers
    std::mutex failure_mutex_;
    std::exception_ptr failure_;  // the current call's first exception
};

}  // namespace earshot::backend::cpu
