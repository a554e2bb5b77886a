// JobQueue: the bounded queue of transcription jobs and the worker threads that run them, one
// model instance per worker (a decoder model's caches serve one job at a time).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/transcription_job.h"

namespace earshot::server {

enum class SubmitOutcome { accepted, full, closed };

class JobQueue {
public:
    // `capacity`: jobs waiting beyond the one each worker runs; more are refused (429).
    JobQueue(int workers, std::size_t capacity, std::filesystem::path default_model,
             JobSettings settings);
    ~JobQueue();
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    // Loads the default model on every worker before the server listens; returns why `auto`
    // runs on the CPU (LoadedModel::backend_fallback), empty when nothing fell back. Throws what
    // load_model throws.
    std::string load_default_model();

    SubmitOutcome submit(std::shared_ptr<TranscriptionJob> job);

    // Seconds a refused client should wait: the jobs ahead of it times the mean job time so far,
    // spread over the workers; at least 1.
    int retry_after_s() const;

    // Refuses new jobs; those accepted still run. close_and_join() also waits for them.
    void close();
    void close_and_join();

    std::size_t waiting() const;

private:
    void work(std::stop_token stop, WorkerModels& models);

    JobSettings settings_;
    std::filesystem::path default_model_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::condition_variable_any ready_;
    std::deque<std::shared_ptr<TranscriptionJob>> waiting_;
    std::size_t running_ = 0;
    bool closed_ = false;
    double job_s_total_ = 0.0;  // for retry_after_s
    int jobs_done_ = 0;
    std::vector<std::unique_ptr<WorkerModels>> models_;
    std::vector<std::jthread> workers_;
};

}  // namespace earshot::server
