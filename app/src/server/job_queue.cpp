// JobQueue: submit, the workers' loop and the Retry-After estimate.
#include "server/job_queue.h"

#include <algorithm>
#include <cmath>

namespace earshot::server {

JobQueue::JobQueue(int workers, std::size_t capacity, std::filesystem::path default_model,
                   JobSettings settings)
    : settings_(settings), default_model_(std::move(default_model)), capacity_(capacity) {
    for (int i = 0; i < workers; ++i) {
        models_.push_back(std::make_unique<WorkerModels>(default_model_, settings.backend));
    }
    // Each worker starts once its models exist: load_default_model() runs before any job.
    for (auto& models : models_) {
        WorkerModels* own = models.get();
        workers_.emplace_back([this, own](std::stop_token stop) { work(stop, *own); });
    }
}

JobQueue::~JobQueue() { close_and_join(); }

std::string JobQueue::load_default_model() {
    std::string fallback;
    for (auto& models : models_) fallback = models->get(default_model_).backend_fallback;
    return fallback;
}

SubmitOutcome JobQueue::submit(std::shared_ptr<TranscriptionJob> job) {
    {
        const std::lock_guard lock(mutex_);
        if (closed_) return SubmitOutcome::closed;
        // Room for one job per worker running and `capacity_` more waiting.
        if (waiting_.size() + running_ >= workers_.size() + capacity_) {
            return SubmitOutcome::full;
        }
        waiting_.push_back(std::move(job));
    }
    ready_.notify_one();
    return SubmitOutcome::accepted;
}

int JobQueue::retry_after_s() const {
    const std::lock_guard lock(mutex_);
    const double mean_s = jobs_done_ == 0 ? 1.0 : job_s_total_ / jobs_done_;
    const double ahead = static_cast<double>(waiting_.size() + running_);
    const double workers = static_cast<double>(std::max<std::size_t>(workers_.size(), 1));
    return std::max(1, static_cast<int>(std::ceil(mean_s * ahead / workers)));
}

void JobQueue::close() {
    {
        const std::lock_guard lock(mutex_);
        closed_ = true;
    }
    ready_.notify_all();
}

void JobQueue::close_and_join() {
    close();
    for (std::jthread& worker : workers_) {
        if (worker.joinable()) worker.join();
    }
}

std::size_t JobQueue::waiting() const {
    const std::lock_guard lock(mutex_);
    return waiting_.size();
}

void JobQueue::work(std::stop_token stop, WorkerModels& models) {
    for (;;) {
        std::shared_ptr<TranscriptionJob> job;
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock, stop, [&] { return !waiting_.empty() || closed_; });
            // Closed: the accepted jobs still run; the worker ends once none is left.
            if (waiting_.empty()) return;
            job = std::move(waiting_.front());
            waiting_.pop_front();
            ++running_;
        }
        const auto start = std::chrono::steady_clock::now();
        HttpReply reply = run_transcription_job(*job, models, settings_);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        {
            const std::lock_guard lock(mutex_);
            job_s_total_ += took.count();
            ++jobs_done_;
            --running_;
        }
        job->done(std::move(reply));
    }
}

}  // namespace earshot::server
