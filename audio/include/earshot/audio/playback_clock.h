// PlaybackClock: where an output stream is in the audio it plays, read from the stream's own clock.
// The audio callback stamps each buffer it fills (its first frame, how many frames of audio it
// holds, and when its first frame reaches the DAC on the stream's clock); the reader turns the
// latest stamp and the stream's time now into the frame being heard.
#pragma once

#include <atomic>
#include <cstdint>

namespace earshot::audio {

// One buffer the callback filled.
struct PlaybackStamp {
    std::int64_t first_frame = 0;  // of the audio, the frame the buffer starts with
    std::int64_t frames = 0;       // frames of audio in it (fewer than the buffer at the end)
    double dac_time_s = 0.0;       // when its first frame is heard, on the stream's clock
};

// The frame heard at `now_s` on the stream's clock, `rate_hz` frames a second, for playback that
// started at `start_frame`. The latest buffer usually lies ahead of what is heard (several are
// queued in the device), so its stamp is followed back: first_frame + (now_s - dac_time_s) *
// rate_hz, held within [start_frame, first_frame + frames] (nothing before the start is played,
// nothing not yet written can be heard).
std::int64_t heard_frame(const PlaybackStamp& latest, double now_s, double rate_hz,
                         std::int64_t start_frame);

// The latest stamp, published by the audio callback and read by another thread without a lock
// (a sequence lock: the writer never waits; a reader retries when it overlapped a write). One
// writer only.
class StampExchange {
public:
    // Forgets the stamp (before a new start; not while the callback runs).
    void reset() noexcept;
    // From the audio callback: wait-free.
    void publish(const PlaybackStamp& stamp) noexcept;
    // False until the first publish() after reset().
    bool read(PlaybackStamp& stamp) const noexcept;

private:
    std::atomic<std::uint64_t> sequence_{0};  // odd while a write is under way
    std::atomic<bool> valid_{false};
    std::atomic<std::int64_t> first_frame_{0};
    std::atomic<std::int64_t> frames_{0};
    std::atomic<double> dac_time_s_{0.0};
};

}  // namespace earshot::audio
