// PacedFileSource: the pacing thread (a 10 ms tick on steady_clock delivering the samples due)
// and its stop, wait and error reporting.
#include "earshot/audio/paced_file_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace earshot::audio {

namespace {

constexpr std::chrono::milliseconds kTick{10};

void check_speed(double speed) {
    if (!(speed > 0.0) || !std::isfinite(speed)) {
        throw std::invalid_argument(
            "paced file source: speed must be a finite number above 0, got " +
            std::to_string(speed));
    }
}

// The speed is checked first: a bad argument is reported before the file is touched.
FileDecoder open_paced(const std::filesystem::path& path, double speed) {
    check_speed(speed);
    return FileDecoder::open(path);
}

}  // namespace

PacedFileSource::PacedFileSource(const std::filesystem::path& path, SampleConsumer consumer,
                                 PacedFileOptions options)
    : decoder_(open_paced(path, options.speed)),
      consumer_(std::move(consumer)),
      speed_(options.speed),
      duration_s_(decoder_.duration_s()) {
    if (!consumer_) throw std::invalid_argument("paced file source: no sample consumer");
}

PacedFileSource::~PacedFileSource() { stop(); }

void PacedFileSource::start() {
    if (started_ || stop_requested_.load()) return;
    started_ = true;
    thread_ = std::thread([this] { run(); });
}

void PacedFileSource::stop() {
    {
        // Under the mutex, so that the thread cannot miss the wake-up between its check and its
        // wait.
        std::lock_guard lock(mutex_);
        stop_requested_.store(true);
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (!started_) finished_.store(true);
}

void PacedFileSource::wait() {
    if (!started_) return;
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return finished_.load(); });
}

bool PacedFileSource::finished() const noexcept { return finished_.load(); }
bool PacedFileSource::reached_end() const noexcept { return reached_end_.load(); }
double PacedFileSource::delivered_s() const noexcept {
    return static_cast<double>(delivered_samples_.load()) / kSampleRateHz;
}
std::optional<double> PacedFileSource::duration_s() const { return duration_s_; }
std::string PacedFileSource::error() const {
    std::lock_guard lock(mutex_);
    return error_;
}

void PacedFileSource::finish_with(std::string error) {
    {
        std::lock_guard lock(mutex_);
        error_ = std::move(error);
        finished_.store(true);
    }
    wake_.notify_all();
}

void PacedFileSource::run() {
    std::vector<float> chunk(kChunkSamples);  // [kChunkSamples]
    const auto start = std::chrono::steady_clock::now();
    std::int64_t delivered = 0;
    std::string error;
    try {
        for (std::int64_t tick = 1; !stop_requested_.load(); ++tick) {
            const auto elapsed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - start)
                                        .count();
            const auto due = static_cast<std::int64_t>(
                std::floor(static_cast<double>(elapsed_ns) * 1e-9 * kSampleRateHz * speed_));
            bool at_end = false;
            while (delivered < due && !stop_requested_.load()) {
                const auto want = static_cast<std::size_t>(std::min<std::int64_t>(
                    due - delivered, static_cast<std::int64_t>(kChunkSamples)));
                const std::size_t got = decoder_.read(std::span<float>(chunk.data(), want));
                if (got > 0) {
                    consumer_(std::span<const float>(chunk.data(), got));
                    delivered += static_cast<std::int64_t>(got);
                    delivered_samples_.store(delivered);
                }
                if (got < want) {
                    at_end = true;
                    break;
                }
            }
            if (at_end) {
                reached_end_.store(true);
                break;
            }
            std::unique_lock lock(mutex_);
            wake_.wait_until(lock, start + tick * kTick, [this] { return stop_requested_.load(); });
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    finish_with(std::move(error));
}

}  // namespace earshot::audio
