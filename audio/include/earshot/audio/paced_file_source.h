// PacedFileSource: plays an audio file into a SampleConsumer on its own thread at a chosen speed,
// the way a live capture would deliver it (for demos, tests and soak runs without a microphone).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "earshot/audio/capture.h"
#include "earshot/audio/file_decoder.h"

namespace earshot::audio {

struct PacedFileOptions {
    double speed = 1.0;  // times real time; > 0
};

// The file is streamed through FileDecoder (16 kHz mono, memory bounded by one codec frame, never
// the whole file). Pacing: the thread wakes every 10 ms of wall time (sleep_until on
// steady_clock, so oversleeping never accumulates) and delivers the samples that are due,
// floor(elapsed wall seconds * 16000 * speed) in all, in consumer calls of at most kChunkSamples;
// at 1x that is 160 samples per call, like Capture's poll. After the last sample the consumer
// is not called again (no end-of-stream call): reached_end() says the file is done.
//
// Threads: the constructor, start(), stop() and the destructor belong to the owner; the consumer
// runs on the source's thread; wait(), finished(), reached_end(), delivered_s(), duration_s() and
// error() may be called from any thread. An exception from the decoder (a file that turns out
// unreadable mid-way) or from the consumer ends the thread and is kept as error().
class PacedFileSource {
public:
    static constexpr int kSampleRateHz = FileDecoder::kSampleRateHz;
    static constexpr std::size_t kChunkSamples = 4096;  // the most one consumer call receives

    // Opens the file at once: throws AudioFileError (bad path, not audio) and
    // std::invalid_argument (speed <= 0 or not finite).
    PacedFileSource(const std::filesystem::path& path, SampleConsumer consumer,
                    PacedFileOptions options = {});
    ~PacedFileSource();  // stop()

    PacedFileSource(const PacedFileSource&) = delete;
    PacedFileSource& operator=(const PacedFileSource&) = delete;

    void start();  // starts the thread; once (later calls, or a call after stop(), do nothing)
    void stop();   // stops early (or after the end) and joins; idempotent
    // Blocks until the whole file was delivered (or stop / error); returns at once when the
    // source was never started.
    void wait();

    bool finished() const noexcept;            // the thread is done (end, stop or error)
    bool reached_end() const noexcept;         // everything was delivered
    double delivered_s() const noexcept;       // audio seconds delivered so far
    std::optional<double> duration_s() const;  // as the container states it; empty if unknown
    std::string error() const;  // non-empty when decoding (or the consumer) failed mid-way

private:
    void run();
    void finish_with(std::string error);

    FileDecoder decoder_;  // used by the thread only, once started
    SampleConsumer consumer_;
    const double speed_;
    const std::optional<double> duration_s_;

    std::thread thread_;
    std::atomic<bool> started_{false};  // set by start() on the owner thread
    std::atomic<bool> stop_requested_{false};
    std::atomic<bool> finished_{false};
    std::atomic<bool> reached_end_{false};
    std::atomic<std::int64_t> delivered_samples_{0};

    mutable std::mutex mutex_;
    std::condition_variable wake_;  // stop() wakes the pacing sleep; the end wakes wait()
    std::string error_;             // guarded by mutex_
};

}  // namespace earshot::audio
