// ThreadPool: workers wait on a generation counter; each run hands every thread one range.
#include "cpu_threads.h"

#include <algorithm>

namespace earshot::backend::cpu {

ThreadPool::ThreadPool(int threads) {
    for (int i = 1; i < std::max(threads, 1); ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
}

ThreadPool& ThreadPool::shared() {
    static ThreadPool pool(static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
    return pool;
}

namespace {

std::pair<int64_t, int64_t> range_of(int index, int parts, int64_t n) {
    const int64_t begin = n * index / parts;
    const int64_t end = n * (index + 1) / parts;
    return {begin, end};
}

}  // namespace

void ThreadPool::work(int index) {
    uint64_t seen = 0;
    while (true) {
        const std::function<void(int64_t, int64_t)>* body = nullptr;
        int64_t n = 0;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            body = body_;
            n = n_;
        }
        auto [begin, end] = range_of(index, size(), n);
        if (begin < end) (*body)(begin, end);
        {
            std::lock_guard lock(mutex_);
            --pending_;
        }
        done_.notify_one();
    }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t)>& body) {
    if (workers_.empty() || n < 2 * grain) {
        if (n > 0) body(0, n);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        body_ = &body;
        n_ = n;
        pending_ = static_cast<int>(workers_.size());
        ++generation_;
    }
    wake_.notify_all();
    auto [begin, end] = range_of(0, size(), n);
    body(begin, end);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
}

}  // namespace earshot::backend::cpu
