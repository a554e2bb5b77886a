// A small pool of worker threads for the CPU kernels' row loops (softmax rows, GELU spans):
// parallel_for splits [0, n) into one contiguous range per thread and waits for all of them.
#pragma once

#include <condition_variable>
#include <cstdint>
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
    // Runs body(begin, end) over a split of [0, n); ranges under `grain` items are not split.
    void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body);

    // One pool per process, sized to the hardware.
    static ThreadPool& shared();

private:
    void work(int index);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    const std::function<void(int64_t, int64_t)>* body_ = nullptr;
    int64_t n_ = 0;
    uint64_t generation_ = 0;
    int pending_ = 0;
    bool stop_ = false;
};

}  // namespace earshot::backend::cpu
