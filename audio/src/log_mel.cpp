// LogMelStream (incremental framing with Whisper's centred reflect padding) and the batch
// log-mel functions, which run the same stream and normalize its frames.
#include "earshot/audio/log_mel.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "log_mel_frame.h"

namespace earshot::audio {

namespace {

// Centred STFT: frame t starts 200 samples before 160 t (reference §1.3).
constexpr std::int64_t kHalfFrame = kWhisperFftSamples / 2;
constexpr std::int64_t kHop = kWhisperHopSamples;
// Samples kept between pushes: one frame plus room to copy new samples in large blocks.
constexpr std::int64_t kBufferSamples = 4096;

// An assert that stays on in release builds.
void check_invariant(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "earshot: log-mel stream invariant broken: %s\n", what);
        std::abort();
    }
}

// Reflection of `index` into [0, length) that excludes the edge sample (numpy/PyTorch "reflect"),
// repeated when the padding is longer than the signal.
std::int64_t reflect_index(std::int64_t index, std::int64_t length) {
    if (length == 1) return 0;
    const std::int64_t period = 2 * (length - 1);
    std::int64_t i = index % period;
    if (i < 0) i += period;
    return i < length ? i : period - i;
}

}  // namespace

struct LogMelStream::State {
    explicit State(int mels)
        : kernel(mels),
          buffer(static_cast<std::size_t>(kBufferSamples)),
          frame_samples(static_cast<std::size_t>(kWhisperFftSamples)),
          frame_out(static_cast<std::size_t>(mels)) {}

    LogMelFrame kernel;
    std::vector<float> buffer;         // samples [buffer_start, buffer_start + buffer_size)
    std::vector<float> frame_samples;  // [400], the padded frame being transformed
    std::vector<float> frame_out;      // [Mels]
    std::int64_t buffer_start = 0;     // absolute index of buffer[0]
    std::int64_t buffer_size = 0;
    std::int64_t samples_pushed = 0;
    std::int64_t next_frame = 0;
    bool finished = false;

    float sample(std::int64_t absolute) const {
        const std::int64_t at = absolute - buffer_start;
        check_invariant(at >= 0 && at < buffer_size, "a frame needs a sample no longer buffered");
        return buffer[static_cast<std::size_t>(at)];
    }

    // Frame `next_frame`, with the signal length `length` for reflection (0 while streaming: only
    // the start reflection applies then), delivered to `sink`.
    void emit(std::int64_t length, const FrameSink& sink) {
        const std::int64_t first = next_frame * kHop - kHalfFrame;
        for (std::int64_t n = 0; n < kWhisperFftSamples; ++n) {
            const std::int64_t index = first + n;
            const std::int64_t source = length > 0  ? reflect_index(index, length)
                                        : index < 0 ? -index
                                                    : index;
            frame_samples[static_cast<std::size_t>(n)] = sample(source);
        }
        kernel.compute(frame_samples, frame_out);
        sink(next_frame, frame_out);
        ++next_frame;
    }

    // Drops the samples no later frame needs, moving the rest to the front of the buffer.
    void compact() {
        const std::int64_t keep_from = std::max<std::int64_t>(0, next_frame * kHop - kHalfFrame);
        const std::int64_t drop = std::min(keep_from - buffer_start, buffer_size);
        if (drop <= 0) return;
        std::copy(buffer.begin() + drop, buffer.begin() + buffer_size, buffer.begin());
        buffer_start += drop;
        buffer_size -= drop;
    }
};

LogMelStream::LogMelStream(int mels) : state_(std::make_unique<State>(mels)) {}
LogMelStream::~LogMelStream() = default;
LogMelStream::LogMelStream(LogMelStream&&) noexcept = default;
LogMelStream& LogMelStream::operator=(LogMelStream&&) noexcept = default;

int LogMelStream::mels() const { return state_->kernel.mels(); }
std::int64_t LogMelStream::samples_pushed() const { return state_->samples_pushed; }
std::int64_t LogMelStream::frames_emitted() const { return state_->next_frame; }
bool LogMelStream::finished() const { return state_->finished; }

std::int64_t LogMelStream::push(std::span<const float> samples, FrameSink sink) {
    State& s = *state_;
    check_invariant(!s.finished, "push() after finish() without reset()");
    const std::int64_t before = s.next_frame;
    while (!samples.empty()) {
        if (s.buffer_size == kBufferSamples) s.compact();
        const auto room = static_cast<std::size_t>(kBufferSamples - s.buffer_size);
        const std::size_t n = std::min(samples.size(), room);
        check_invariant(n > 0, "the sample buffer is full after compaction");
        std::copy_n(samples.begin(), n, s.buffer.begin() + s.buffer_size);
        s.buffer_size += static_cast<std::int64_t>(n);
        s.samples_pushed += static_cast<std::int64_t>(n);
        samples = samples.subspan(n);
        // Frame t lies inside the pushed samples once 160 t + 200 exist; frame 0 also reflects
        // x[200], so it needs 201.
        while (s.samples_pushed >= s.next_frame * kHop + kHalfFrame &&
               s.samples_pushed > kHalfFrame) {
            s.emit(0, sink);
        }
    }
    return s.next_frame - before;
}

std::int64_t LogMelStream::finish(FrameSink sink) {
    State& s = *state_;
    const std::int64_t before = s.next_frame;
    if (!s.finished) {
        // floor(L / 160) frames: the centred STFT's 1 + floor(L / 160), less the dropped last.
        const std::int64_t total = s.samples_pushed / kHop;
        while (s.next_frame < total) s.emit(s.samples_pushed, sink);
        s.finished = true;
    }
    return s.next_frame - before;
}

void LogMelStream::reset() {
    State& s = *state_;
    s.buffer_start = 0;
    s.buffer_size = 0;
    s.samples_pushed = 0;
    s.next_frame = 0;
    s.finished = false;
}

std::vector<float> raw_log_mel_frames(std::span<const float> samples, int mels) {
    LogMelStream stream(mels);
    const auto frame_size = static_cast<std::size_t>(mels);
    std::vector<float> frames;  // [Frames][Mels]
    frames.reserve(samples.size() / static_cast<std::size_t>(kHop) * frame_size);
    auto collect = [&frames](std::int64_t, std::span<const float> frame) {
        frames.insert(frames.end(), frame.begin(), frame.end());
    };
    stream.push(samples, collect);
    stream.finish(collect);
    return frames;
}

LogMel normalize_window(std::span<const float> raw_frames, int mels,
                        std::optional<std::int64_t> frames) {
    if (mels < 1 || raw_frames.size() % static_cast<std::size_t>(mels) != 0) {
        throw std::invalid_argument("log-mel normalize: " + std::to_string(raw_frames.size()) +
                                    " raw values are not whole frames of " + std::to_string(mels) +
                                    " mels");
    }
    const auto available = static_cast<std::int64_t>(raw_frames.size()) / mels;
    const std::int64_t count = frames.value_or(available);
    if (count < 0) {
        throw std::invalid_argument("log-mel normalize: negative frame count " +
                                    std::to_string(count));
    }
    const std::int64_t used = std::min(count, available);
    const auto used_values = static_cast<std::size_t>(used * mels);

    // The maximum over every value of the window, padding included (reference §1.5).
    float window_max = used < count ? kLogMelFloor : -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < used_values; ++i) window_max = std::max(window_max, raw_frames[i]);
    const float clamp_floor = window_max - 8.0f;

    LogMel out;
    out.mels = mels;
    out.frames = count;
    out.values.resize(static_cast<std::size_t>(count * mels));  // [Mels, Frames]
    for (std::int64_t t = 0; t < count; ++t) {
        for (int m = 0; m < mels; ++m) {
            const float raw =
                t < used ? raw_frames[static_cast<std::size_t>(t * mels + m)] : kLogMelFloor;
            out.values[static_cast<std::size_t>(m * count + t)] =
                (std::max(raw, clamp_floor) + 4.0f) / 4.0f;
        }
    }
    return out;
}

LogMel log_mel(std::span<const float> samples, int mels) {
    return normalize_window(raw_log_mel_frames(samples, mels), mels);
}

LogMel log_mel_window(std::span<const float> samples, int mels, std::int64_t frames) {
    if (frames < 1) {
        throw std::invalid_argument("log-mel window: needs at least 1 frame, got " +
                                    std::to_string(frames));
    }
    const auto window_samples = static_cast<std::size_t>(frames * kHop);
    std::vector<float> padded(window_samples, 0.0f);  // silence past the end of `samples`
    std::copy_n(samples.begin(), std::min(samples.size(), window_samples), padded.begin());
    return normalize_window(raw_log_mel_frames(padded, mels), mels, frames);
}

}  // namespace earshot::audio
