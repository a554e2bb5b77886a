// Capture: records one input device through PortAudio and hands mono 16 kHz samples to a
// consumer on its own audio thread; device trouble arrives as CaptureEvents the owner polls.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "earshot/audio/capture_event.h"
#include "earshot/audio/input_device.h"
#include "earshot/audio/stream_resampler.h"

namespace earshot::audio {

struct CaptureOptions {
    // Which device: "" for the default input, else a name, a unique name substring or an index
    // (see choose_input_device).
    std::string device;
    int output_rate_hz = StreamResampler::kWhisperRateHz;
    // Room in the callback -> audio thread ring, in seconds of device-rate mono audio.
    double ring_seconds = 2.0;
    // How often the audio thread drains the ring and checks the stream.
    std::chrono::milliseconds poll_interval{10};
    // A running stream whose callback delivers nothing for this long counts as lost (a device
    // that hangs instead of failing). PulseAudio's monitor of an idle sink delivers in bursts
    // up to about 2 s apart, hence the margin.
    std::chrono::milliseconds silence_timeout{5000};
};

// Counters since the last start(); readable from any thread.
struct CaptureStats {
    std::uint64_t device_frames = 0;      // frames the callback received (device rate)
    std::uint64_t overrun_samples = 0;    // mono samples dropped because the ring was full
    std::uint64_t input_overflows = 0;    // callbacks the driver flagged with an input overflow
    std::uint64_t delivered_samples = 0;  // output-rate samples handed to the consumer
};

// Receives output-rate mono samples on the audio thread; the span is valid during the call only.
using SampleConsumer = std::function<void(std::span<const float> samples)>;

// Threads: start(), stop(), device*() and the destructor belong to the owner's thread;
// take_events(), stats() and running() may be called from any thread. The PortAudio callback only
// copies into a preallocated lock-free ring (downmixing to mono on the stack) and bumps atomic
// counters.
class Capture {
public:
    explicit Capture(SampleConsumer consumer);
    ~Capture();  // stops
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;

    // Opens the chosen device at its default rate, mono when it can (else its first two channels
    // averaged), and starts the audio thread; a running capture is stopped first. Returns the
    // outcome as a value, `started` or an error kind (device_not_found, open_failed) whose
    // message names the device; the same event is queued for take_events(). Throws
    // AudioDeviceError only when PortAudio itself cannot be initialised.
    CaptureEvent start(const CaptureOptions& options = {});

    // Stops the stream, delivers what is still buffered (resampler tail included) and joins the
    // audio thread; queues `stopped`. Does nothing when not running. start() may follow.
    void stop();

    // Between a successful start() and stop(), even after a device_lost event.
    bool running() const noexcept;

    // The events queued since the last call, oldest first.
    std::vector<CaptureEvent> take_events();

    CaptureStats stats() const;

    // The device the last successful start() opened, its rate and the channels opened.
    std::optional<InputDevice> device() const;
    int device_rate_hz() const noexcept;
    int device_channels() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace earshot::audio
