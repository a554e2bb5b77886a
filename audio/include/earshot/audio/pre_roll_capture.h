// PreRollCapture: a microphone kept open while dictation is idle, remembering its last few
// seconds; Start hands those seconds and then the live stream to the dictation session, without
// reopening the device, so a word said together with the shortcut is heard whole.
#pragma once

#include <cstddef>
#include <mutex>
#include <span>
#include <vector>

#include "earshot/audio/capture.h"
#include "earshot/audio/pre_roll_history.h"

namespace earshot::audio {

// Threads: everything but the consumer belongs to the owner's thread. The PortAudio callback is
// Capture's (lock-free ring); the audio thread that drains it calls on_samples(), which takes an
// uncontended mutex shared only with attach() and detach().
class PreRollCapture {
public:
    // Keeps the last `seconds` of output-rate audio (bounded: the ring is allocated here).
    explicit PreRollCapture(double seconds, int output_rate_hz = StreamResampler::kWhisperRateHz);
    ~PreRollCapture();  // stops
    PreRollCapture(const PreRollCapture&) = delete;
    PreRollCapture& operator=(const PreRollCapture&) = delete;

    // Opens the device as Capture::start does; the history starts empty.
    CaptureEvent start(const CaptureOptions& options = {});
    void stop();
    bool running() const noexcept { return capture_.running(); }
    std::vector<CaptureEvent> take_events() { return capture_.take_events(); }
    CaptureStats stats() const { return capture_.stats(); }

    double seconds() const noexcept { return seconds_; }
    // Samples kept right now (what attach() would hand over first).
    std::size_t kept_samples() const;

    // From now on the microphone's audio goes to `sink`: first the kept samples, oldest first
    // (called here, on this thread), then every delivery of the audio thread. Nothing is lost or
    // repeated between the two.
    void attach(SampleConsumer sink);
    // Ends the hand-over: when it returns, `sink` is not being called and will not be again.
    // Keeping the history starts anew.
    void detach();
    bool attached() const;

private:
    void on_samples(std::span<const float> samples);

    const double seconds_;
    mutable std::mutex mutex_;
    PreRollHistory history_;    // guarded by mutex_
    SampleConsumer sink_;       // guarded by mutex_
    std::vector<float> taken_;  // attach()'s copy of the history, allocated once
    Capture capture_;           // last: stopped first, while the members above still exist
};

}  // namespace earshot::audio
