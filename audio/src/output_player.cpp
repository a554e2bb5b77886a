// OutputPlayer: a PortAudio output stream whose callback copies from the samples (read-only while
// the stream runs) at an atomic cursor and stamps each buffer for PlaybackClock. Seeking stops
// the stream, moves the cursor and starts it again, so the callback never sees a change.
#include "earshot/audio/output_player.h"

#include <portaudio.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <span>
#include <string>

#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/playback_clock.h"
#include "earshot/audio/stream_resampler.h"
#include "portaudio_session.h"

namespace earshot::audio {

namespace {

// Everything the real-time callback touches: the samples (not changed while the stream runs),
// atomics and the stamp exchange.
struct CallbackState {
    const float* samples = nullptr;
    std::int64_t total_frames = 0;
    int channels = 1;
    double latency_s = 0.0;  // the stream's output latency, for host APIs without DAC times
    std::atomic<std::int64_t> next_frame{0};
    StampExchange stamps;
};

int play_callback(const void* /*input*/, void* output, unsigned long frame_count,
                  const PaStreamCallbackTimeInfo* time, PaStreamCallbackFlags /*flags*/,
                  void* user_data) noexcept {
    auto& state = *static_cast<CallbackState*>(user_data);
    auto* out = static_cast<float*>(output);  // [frame_count, channels]
    const std::int64_t first = state.next_frame.load(std::memory_order_relaxed);
    const std::int64_t frames = std::clamp<std::int64_t>(state.total_frames - first, 0,
                                                         static_cast<std::int64_t>(frame_count));
    const auto channels = static_cast<std::size_t>(state.channels);
    for (std::int64_t f = 0; f < frames; ++f) {
        const float sample = state.samples[first + f];
        for (std::size_t c = 0; c < channels; ++c)
            out[static_cast<std::size_t>(f) * channels + c] = sample;
    }
    std::fill(out + static_cast<std::size_t>(frames) * channels, out + frame_count * channels,
              0.0f);
    state.next_frame.store(first + frames, std::memory_order_relaxed);
    // ALSA and PulseAudio report when the buffer is heard; where a host API leaves it 0, the
    // stream's time now plus its output latency stands in.
    const double dac_time_s = time != nullptr && time->outputBufferDacTime > 0.0
                                  ? time->outputBufferDacTime
                                  : (time != nullptr ? time->currentTime : 0.0) + state.latency_s;
    state.stamps.publish({first, frames, dac_time_s});
    return first + frames >= state.total_frames ? paComplete : paContinue;
}

std::string pa_text(PaError status) { return Pa_GetErrorText(status); }

}  // namespace

struct OutputPlayer::Impl {
    std::vector<float> source;  // as set_audio gave it
    int source_rate_hz = 0;
    std::vector<float> resampled;  // at rate_hz when the device does not take source_rate_hz
    int rate_hz = 0;
    std::optional<PortAudioSession> session;
    PaStream* stream = nullptr;
    CallbackState state;
    bool started = false;            // play() started the stream; pause() or set_audio() undo it
    std::int64_t start_frame = 0;    // where the running playback began
    std::int64_t stopped_frame = 0;  // the position while not started

    ~Impl() { close(); }

    void stop_stream() {
        if (stream != nullptr && Pa_IsStreamStopped(stream) == 0) {
            Pa_AbortStream(stream);
        }
    }

    void close() {
        stop_stream();
        if (stream != nullptr) {
            Pa_CloseStream(stream);
            stream = nullptr;
        }
        session.reset();
    }

    std::int64_t heard() const {
        PlaybackStamp stamp;
        if (!state.stamps.read(stamp)) {
            return start_frame;
        }
        const PaTime now = Pa_GetStreamTime(stream);
        return std::min(heard_frame(stamp, now, rate_hz, start_frame), state.total_frames);
    }

    void open() {
        session.emplace();  // throws AudioDeviceError when PortAudio cannot start
        const PaDeviceIndex device = Pa_GetDefaultOutputDevice();
        const PaDeviceInfo* info = device == paNoDevice ? nullptr : Pa_GetDeviceInfo(device);
        if (info == nullptr || info->maxOutputChannels < 1) {
            session.reset();
            throw AudioDeviceError("there is no audio output device to play through");
        }
        const std::string name = std::string("\"") + info->name + "\"";
        PaStreamParameters parameters{};
        parameters.device = device;
        parameters.sampleFormat = paFloat32;
        // Playback needs no low latency (the position comes from the DAC times), and a small
        // buffer starves on a busy machine: with the low latency, PulseAudio's ALSA plugin stalled
        // playback for good while two other processes kept the cores busy.
        parameters.suggestedLatency = std::max(info->defaultHighOutputLatency, 0.1);
        // The samples' own rate when the device takes it, else the device's.
        double rate = source_rate_hz;
        int channels = 0;
        for (double candidate : {static_cast<double>(source_rate_hz), info->defaultSampleRate}) {
            for (int count : {1, 2}) {
                parameters.channelCount = std::min(count, info->maxOutputChannels);
                if (Pa_IsFormatSupported(nullptr, &parameters, candidate) == paFormatIsSupported) {
                    rate = candidate;
                    channels = parameters.channelCount;
                    break;
                }
            }
            if (channels > 0) break;
        }
        if (channels == 0) {
            session.reset();
            throw AudioDeviceError("the audio output device " + name + " takes neither " +
                                   std::to_string(source_rate_hz) + " Hz nor its own rate");
        }
        parameters.channelCount = channels;
        state.channels = channels;
        PaStream* opened = nullptr;
        const PaError status =
            Pa_OpenStream(&opened, nullptr, &parameters, rate, paFramesPerBufferUnspecified,
                          paClipOff, play_callback, &state);
        if (status != paNoError) {
            session.reset();
            throw AudioDeviceError("could not open the audio output device " + name + ": " +
                                   pa_text(status));
        }
        stream = opened;
        if (const PaStreamInfo* stream_info = Pa_GetStreamInfo(stream)) {
            state.latency_s = stream_info->outputLatency;
        }
        rate_hz = static_cast<int>(std::lround(rate));
        prepare_samples();
    }

    // The samples at the stream's rate (resampled once, not in the callback).
    // The source itself when the rates agree (no copy: an hour at 16 kHz is 230 MB).
    void prepare_samples() {
        resampled.clear();
        resampled.shrink_to_fit();
        if (rate_hz == source_rate_hz || source.empty()) {
            state.samples = source.data();
            state.total_frames = static_cast<std::int64_t>(source.size());
            return;
        }
        StreamResampler resampler(source_rate_hz, rate_hz);
        const std::span<const float> converted = resampler.push(source);
        resampled.assign(converted.begin(), converted.end());
        const std::span<const float> tail = resampler.finish();
        resampled.insert(resampled.end(), tail.begin(), tail.end());
        state.samples = resampled.data();
        state.total_frames = static_cast<std::int64_t>(resampled.size());
    }
};

OutputPlayer::OutputPlayer() : impl_(std::make_unique<Impl>()) {}
OutputPlayer::~OutputPlayer() = default;

void OutputPlayer::set_audio(std::vector<float> samples, int sample_rate_hz) {
    impl_->stop_stream();
    impl_->started = false;
    impl_->stopped_frame = 0;
    impl_->source = std::move(samples);
    if (impl_->stream != nullptr && sample_rate_hz != impl_->source_rate_hz) {
        impl_->close();  // reopened at the new rate by play()
    }
    impl_->source_rate_hz = sample_rate_hz;
    if (impl_->stream != nullptr) {
        impl_->prepare_samples();
    }
}

void OutputPlayer::play(double start_s) {
    if (impl_->stream == nullptr) {
        impl_->open();
    }
    impl_->stop_stream();
    const std::int64_t total = impl_->state.total_frames;
    const auto start = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::llround(std::max(0.0, start_s) * impl_->rate_hz)), 0, total);
    impl_->start_frame = start;
    impl_->stopped_frame = start;
    impl_->state.next_frame.store(start, std::memory_order_relaxed);
    impl_->state.stamps.reset();
    if (start >= total) {
        impl_->started = false;  // nothing left to play
        return;
    }
    const PaError status = Pa_StartStream(impl_->stream);
    if (status != paNoError) {
        impl_->close();
        throw AudioDeviceError("could not start the audio output device: " + pa_text(status));
    }
    impl_->started = true;
}

void OutputPlayer::pause() {
    if (!impl_->started) {
        return;
    }
    impl_->stopped_frame = impl_->heard();
    impl_->stop_stream();
    impl_->started = false;
}

bool OutputPlayer::playing() const {
    return impl_->started && impl_->stream != nullptr && Pa_IsStreamActive(impl_->stream) == 1;
}

double OutputPlayer::position_s() const {
    if (impl_->rate_hz <= 0) {
        return 0.0;
    }
    if (impl_->started && !playing() &&
        impl_->state.next_frame.load(std::memory_order_relaxed) >= impl_->state.total_frames) {
        return duration_s();  // it played to the end and the stream finished
    }
    const std::int64_t frame = impl_->started ? impl_->heard() : impl_->stopped_frame;
    // At the end: the source's own length (resampling may add or drop a few frames).
    if (frame >= impl_->state.total_frames) {
        return duration_s();
    }
    return std::min(static_cast<double>(frame) / impl_->rate_hz, duration_s());
}

double OutputPlayer::duration_s() const {
    return impl_->source_rate_hz <= 0
               ? 0.0
               : static_cast<double>(impl_->source.size()) / impl_->source_rate_hz;
}

}  // namespace earshot::audio
