// PlaybackClock: heard_frame's arithmetic and StampExchange's sequence lock.
#include "earshot/audio/playback_clock.h"

#include <algorithm>
#include <cmath>

namespace earshot::audio {

std::int64_t heard_frame(const PlaybackStamp& latest, double now_s, double rate_hz,
                         std::int64_t start_frame) {
    const double offset = std::round((now_s - latest.dac_time_s) * rate_hz);
    const auto frame = latest.first_frame + static_cast<std::int64_t>(offset);
    const std::int64_t written = latest.first_frame + latest.frames;
    return std::clamp(frame, std::min(start_frame, written), written);
}

void StampExchange::reset() noexcept { valid_.store(false, std::memory_order_release); }

// The sequence lock with every access atomic and no standalone fence (ThreadSanitizer, which the
// live tests run under, does not model fences): the fields are stored with release after the odd
// count and loaded with acquire before the count is read again, so a reader that saw any field of
// a newer write also sees its odd or newer count, and retries.
void StampExchange::publish(const PlaybackStamp& stamp) noexcept {
    const std::uint64_t sequence = sequence_.load(std::memory_order_relaxed);
    sequence_.store(sequence + 1, std::memory_order_relaxed);
    first_frame_.store(stamp.first_frame, std::memory_order_release);
    frames_.store(stamp.frames, std::memory_order_release);
    dac_time_s_.store(stamp.dac_time_s, std::memory_order_release);
    valid_.store(true, std::memory_order_release);
    sequence_.store(sequence + 2, std::memory_order_release);
}

bool StampExchange::read(PlaybackStamp& stamp) const noexcept {
    for (;;) {
        const std::uint64_t before = sequence_.load(std::memory_order_acquire);
        if ((before & 1U) != 0) {
            continue;  // a write is under way
        }
        const bool valid = valid_.load(std::memory_order_acquire);
        const PlaybackStamp read_stamp{first_frame_.load(std::memory_order_acquire),
                                       frames_.load(std::memory_order_acquire),
                                       dac_time_s_.load(std::memory_order_acquire)};
        if (sequence_.load(std::memory_order_relaxed) == before) {
            if (valid) {
                stamp = read_stamp;
            }
            return valid;
        }
    }
}

}  // namespace earshot::audio
