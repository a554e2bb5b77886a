// Capture: the PortAudio stream, its real-time callback, and the audio thread that drains the
// ring, resamples, feeds the consumer and watches the stream for errors.
#include "earshot/audio/capture.h"

#include <portaudio.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stop_token>
#include <thread>

#include "earshot/audio/spsc_ring.h"
#include "portaudio_session.h"

namespace earshot::audio {

namespace {

// Samples the audio thread moves from the ring per read.
constexpr std::size_t kDrainChunkSamples = 4096;
// Frames the callback downmixes at a time into its stack buffer.
constexpr std::size_t kDownmixFrames = 256;

// Everything the real-time callback touches: the ring and atomics, nothing else.
struct CallbackState {
    CallbackState(std::size_t ring_samples, int channel_count)
        : ring(ring_samples), channels(channel_count) {}

    SpscRing ring;
    const int channels;
    std::atomic<std::uint64_t> device_frames{0};
    std::atomic<std::uint64_t> input_overflows{0};
    std::atomic<bool> finished{false};
};

int record_callback(const void* input, void* /*output*/, unsigned long frame_count,
                    const PaStreamCallbackTimeInfo* /*time*/, PaStreamCallbackFlags flags,
                    void* user_data) noexcept {
    auto& state = *static_cast<CallbackState*>(user_data);
    if ((flags & paInputOverflow) != 0) {
        state.input_overflows.fetch_add(1, std::memory_order_relaxed);
    }
    if (input == nullptr) return paContinue;
    const auto* samples = static_cast<const float*>(input);  // [frame_count, channels]
    if (state.channels == 1) {
        state.ring.write(samples, frame_count);
    } else {
        const auto channels = static_cast<std::size_t>(state.channels);
        const float scale = 1.0f / static_cast<float>(channels);
        std::array<float, kDownmixFrames> mono;
        for (std::size_t done = 0; done < frame_count;) {
            const std::size_t n = std::min<std::size_t>(kDownmixFrames, frame_count - done);
            for (std::size_t f = 0; f < n; ++f) {
                const float* frame = samples + (done + f) * channels;
                float sum = 0.0f;
                for (std::size_t c = 0; c < channels; ++c) sum += frame[c];
                mono[f] = sum * scale;
            }
            state.ring.write(mono.data(), n);
            done += n;
        }
    }
    state.device_frames.fetch_add(frame_count, std::memory_order_relaxed);
    return paContinue;
}

void stream_finished_callback(void* user_data) noexcept {
    static_cast<CallbackState*>(user_data)->finished.store(true, std::memory_order_release);
}

std::string device_label(const InputDevice& device) {
    return "\"" + device.name + "\" (index " + std::to_string(device.index) + ", " +
           device.host_api + ")";
}

}  // namespace

struct Capture::Impl {
    explicit Impl(SampleConsumer sample_consumer) : consumer(std::move(sample_consumer)) {}

    void post(CaptureEventKind kind, std::string message) {
        std::lock_guard lock(events_mutex);
        events.push_back({kind, std::move(message)});
    }

    CaptureEvent fail(CaptureEventKind kind, std::string message) {
        post(kind, message);
        return {kind, std::move(message)};
    }

    CaptureEvent start(const CaptureOptions& options);
    CaptureEvent open_and_start(const CaptureOptions& options);
    void stop();
    void run(std::stop_token stop_token);
    // Audio thread: is the stream still delivering? Posts device_lost or stream_error if not.
    bool check_stream(std::uint64_t& last_frames,
                      std::chrono::steady_clock::time_point& last_progress);
    void deliver(std::span<const float> samples) {
        if (samples.empty()) return;
        consumer(samples);
        delivered_samples.fetch_add(samples.size(), std::memory_order_relaxed);
    }

    SampleConsumer consumer;
    CaptureOptions options;

    std::mutex events_mutex;
    std::vector<CaptureEvent> events;  // guarded by events_mutex

    std::optional<PortAudioSession> session;
    // Replaced by start() on the owner's thread; stats() may read it from any thread.
    mutable std::mutex callback_state_mutex;
    std::unique_ptr<CallbackState> callback_state;
    std::unique_ptr<StreamResampler> resampler;  // used by the audio thread only
    std::optional<InputDevice> device;
    int rate_hz = 0;
    int channels = 0;
    std::atomic<std::uint64_t> delivered_samples{0};
    std::atomic<bool> is_running{false};

    // Guards PortAudio calls on `stream` between the owner (stop) and the audio thread (checks).
    std::mutex stream_mutex;
    PaStream* stream = nullptr;
    bool stream_stopped = false;  // guarded by stream_mutex

    std::mutex wake_mutex;
    std::condition_variable_any wake;
    std::jthread thread;
};

CaptureEvent Capture::Impl::start(const CaptureOptions& start_options) {
    try {
        return open_and_start(start_options);
    } catch (...) {
        session.reset();  // PortAudio stays up only while a stream is open
        throw;
    }
}

CaptureEvent Capture::Impl::open_and_start(const CaptureOptions& start_options) {
    options = start_options;
    session.emplace();  // keeps PortAudio up from enumeration to the end of the stream
    const std::vector<InputDevice> devices = list_input_devices();
    DeviceChoice choice = choose_input_device(devices, options.device);
    if (!choice.device) {
        session.reset();
        return fail(CaptureEventKind::device_not_found, choice.error);
    }
    const InputDevice chosen = *choice.device;
    const double rate = chosen.default_sample_rate_hz;

    PaStreamParameters parameters{};
    parameters.device = chosen.index;
    parameters.sampleFormat = paFloat32;
    const PaDeviceInfo* info = Pa_GetDeviceInfo(chosen.index);
    parameters.suggestedLatency = info != nullptr ? info->defaultHighInputLatency : 0.1;
    parameters.hostApiSpecificStreamInfo = nullptr;
    // Mono when the device offers it; many hardware devices only open in stereo.
    int channel_count = 1;
    for (int candidate : {1, 2, chosen.max_input_channels}) {
        channel_count = std::min(candidate, chosen.max_input_channels);
        parameters.channelCount = channel_count;
        if (Pa_IsFormatSupported(&parameters, nullptr, rate) == paFormatIsSupported) break;
    }

    const auto ring_samples = static_cast<std::size_t>(std::max(1.0, options.ring_seconds * rate));
    auto state = std::make_unique<CallbackState>(ring_samples, channel_count);
    auto stream_resampler = std::make_unique<StreamResampler>(static_cast<int>(std::lround(rate)),
                                                              options.output_rate_hz);

    PaStream* opened = nullptr;
    PaError status =
        Pa_OpenStream(&opened, &parameters, nullptr, rate, paFramesPerBufferUnspecified, paClipOff,
                      record_callback, state.get());
    const auto open_error = [&](const char* what) {
        session.reset();
        return fail(CaptureEventKind::open_failed,
                    std::string("could not ") + what + " input device " + device_label(chosen) +
                        " at " + std::to_string(std::lround(rate)) + " Hz, " +
                        std::to_string(channel_count) + " channel(s): " + Pa_GetErrorText(status));
    };
    if (status != paNoError) return open_error("open");
    Pa_SetStreamFinishedCallback(opened, stream_finished_callback);
    status = Pa_StartStream(opened);
    if (status != paNoError) {
        Pa_CloseStream(opened);
        return open_error("start");
    }

    {
        std::lock_guard lock(callback_state_mutex);
        callback_state = std::move(state);
    }
    resampler = std::move(stream_resampler);
    device = chosen;
    rate_hz = static_cast<int>(std::lround(rate));
    channels = channel_count;
    delivered_samples.store(0, std::memory_order_relaxed);
    {
        std::lock_guard lock(stream_mutex);
        stream = opened;
        stream_stopped = false;
    }
    is_running.store(true, std::memory_order_release);
    thread = std::jthread([this](std::stop_token stop_token) { run(stop_token); });

    std::string message = "recording from " + device_label(chosen) + " at " +
                          std::to_string(rate_hz) + " Hz, " + std::to_string(channels) +
                          " channel(s)";
    post(CaptureEventKind::started, message);
    return {CaptureEventKind::started, std::move(message)};
}

bool Capture::Impl::check_stream(std::uint64_t& last_frames,
                                 std::chrono::steady_clock::time_point& last_progress) {
    const auto now = std::chrono::steady_clock::now();
    const std::uint64_t frames = callback_state->device_frames.load(std::memory_order_relaxed);
    if (frames != last_frames) {
        last_frames = frames;
        last_progress = now;
    }
    PaError active = 1;
    {
        std::lock_guard lock(stream_mutex);
        if (stream_stopped) return true;  // stop() in progress: not a device problem
        active = Pa_IsStreamActive(stream);
    }
    const std::string label = device_label(*device);
    if (active < 0) {
        post(CaptureEventKind::stream_error,
             "input device " + label + " failed: " + Pa_GetErrorText(active));
        return false;
    }
    if (active == 0 || callback_state->finished.load(std::memory_order_acquire)) {
        post(CaptureEventKind::device_lost, "input device " + label + " stopped unexpectedly");
        return false;
    }
    if (now - last_progress > options.silence_timeout) {
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(now - last_progress).count();
        post(CaptureEventKind::device_lost,
             "input device " + label + " delivered no audio for " + std::to_string(ms) + " ms");
        return false;
    }
    return true;
}

void Capture::Impl::run(std::stop_token stop_token) {
    std::vector<float> chunk(kDrainChunkSamples);
    std::uint64_t last_frames = 0;
    std::uint64_t reported_overflows = 0;
    auto last_progress = std::chrono::steady_clock::now();
    bool healthy = true;
    try {
        for (;;) {
            const bool stopping = stop_token.stop_requested();
            // When stopping, stop() has already stopped the stream: this drains the rest.
            std::size_t n = 0;
            while ((n = callback_state->ring.read(chunk.data(), chunk.size())) > 0) {
                deliver(resampler->push({chunk.data(), n}));
            }
            if (stopping) break;
            const std::uint64_t overflows =
                callback_state->input_overflows.load(std::memory_order_relaxed);
            if (overflows != reported_overflows) {
                post(CaptureEventKind::input_overflow,
                     "input device " + device_label(*device) + " overflowed " +
                         std::to_string(overflows - reported_overflows) + " time(s)");
                reported_overflows = overflows;
            }
            if (healthy) healthy = check_stream(last_frames, last_progress);
            std::unique_lock lock(wake_mutex);
            wake.wait_for(lock, stop_token, options.poll_interval, [] { return false; });
        }
        deliver(resampler->finish());
    } catch (const std::exception& error) {
        post(CaptureEventKind::stream_error,
             "audio thread for " + device_label(*device) + " failed: " + error.what());
    }
}

void Capture::Impl::stop() {
    if (!is_running.load(std::memory_order_acquire)) return;
    bool lost = false;
    {
        std::lock_guard lock(stream_mutex);
        stream_stopped = true;
        // A finished or failed stream needs no draining; aborting it cannot wait on a dead device.
        lost = Pa_IsStreamActive(stream) != 1;
        if (lost) {
            Pa_AbortStream(stream);
        } else {
            Pa_StopStream(stream);
        }
    }
    thread.request_stop();
    thread.join();
    Pa_CloseStream(stream);
    {
        std::lock_guard lock(stream_mutex);
        stream = nullptr;
    }
    session.reset();
    is_running.store(false, std::memory_order_release);
    const CaptureStats totals{callback_state->device_frames.load(std::memory_order_relaxed),
                              callback_state->ring.overrun_samples(),
                              callback_state->input_overflows.load(std::memory_order_relaxed),
                              delivered_samples.load(std::memory_order_relaxed)};
    post(CaptureEventKind::stopped,
         "stopped " + device_label(*device) + ": " + std::to_string(totals.delivered_samples) +
             " samples delivered, " + std::to_string(totals.overrun_samples) +
             " dropped by overruns");
}

Capture::Capture(SampleConsumer consumer) : impl_(std::make_unique<Impl>(std::move(consumer))) {}

Capture::~Capture() { stop(); }

CaptureEvent Capture::start(const CaptureOptions& options) {
    stop();
    return impl_->start(options);
}

void Capture::stop() { impl_->stop(); }

bool Capture::running() const noexcept { return impl_->is_running.load(std::memory_order_acquire); }

std::vector<CaptureEvent> Capture::take_events() {
    std::lock_guard lock(impl_->events_mutex);
    std::vector<CaptureEvent> taken;
    taken.swap(impl_->events);
    return taken;
}

CaptureStats Capture::stats() const {
    std::lock_guard lock(impl_->callback_state_mutex);
    const CallbackState* state = impl_->callback_state.get();
    if (state == nullptr) return {};
    return {state->device_frames.load(std::memory_order_relaxed), state->ring.overrun_samples(),
            state->input_overflows.load(std::memory_order_relaxed),
            impl_->delivered_samples.load(std::memory_order_relaxed)};
}

std::optional<InputDevice> Capture::device() const { return impl_->device; }

int Capture::device_rate_hz() const noexcept { return impl_->rate_hz; }

int Capture::device_channels() const noexcept { return impl_->channels; }

}  // namespace earshot::audio
