// MelFrameQueue: whole-record writes and reads over SpscRing, and the drop count.
#include "earshot/audio/mel_frame_queue.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace earshot::audio {

namespace {

// An assert that stays on in release builds.
void check_invariant(bool ok, const char* what) noexcept {
    if (!ok) {
        std::fprintf(stderr, "earshot: mel frame queue invariant broken: %s\n", what);
        std::abort();
    }
}

int checked_mels(int mels) {
    if (mels < 1) {
        throw std::invalid_argument("mel frame queue: needs at least 1 mel, got " +
                                    std::to_string(mels));
    }
    return mels;
}

std::size_t checked_capacity(std::size_t capacity_frames) {
    if (capacity_frames < 1) {
        throw std::invalid_argument("mel frame queue: needs room for at least 1 frame");
    }
    return capacity_frames;
}

}  // namespace

MelFrameQueue::MelFrameQueue(int mels, std::size_t capacity_frames)
    : mels_(checked_mels(mels)),
      record_floats_(static_cast<std::size_t>(mels) + 2),
      capacity_frames_(checked_capacity(capacity_frames)),
      ring_(capacity_frames_ * record_floats_),
      push_record_(new float[record_floats_]()),
      pop_record_(new float[record_floats_]()) {}

bool MelFrameQueue::push(std::span<const float> raw_frame, MelFrameInfo info) noexcept {
    check_invariant(raw_frame.size() == static_cast<std::size_t>(mels_),
                    "push() of a frame whose size is not mels()");
    // The ring may be larger than capacity_frames_ records (it rounds up to a power of two), so
    // both the frame count and the room are checked. Exact here: only this thread adds records.
    const std::size_t room = ring_.free_space();
    const std::size_t queued = (ring_.capacity() - room) / record_floats_;
    if (queued >= capacity_frames_ || room < record_floats_) {
        dropped_frames_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    float* record = push_record_.get();
    std::copy(raw_frame.begin(), raw_frame.end(), record);
    record[mels_] = info.speech ? 1.0f : 0.0f;
    record[mels_ + 1] = info.level_dbfs;
    const std::size_t written = ring_.write(record, record_floats_);
    check_invariant(written == record_floats_, "a record split in the ring");
    return true;
}

bool MelFrameQueue::pop(std::span<float> raw_frame, MelFrameInfo& info) noexcept {
    check_invariant(raw_frame.size() == static_cast<std::size_t>(mels_),
                    "pop() into a frame whose size is not mels()");
    if (ring_.size() < record_floats_) return false;
    float* record = pop_record_.get();
    const std::size_t read = ring_.read(record, record_floats_);
    check_invariant(read == record_floats_, "a record split in the ring");
    std::copy(record, record + mels_, raw_frame.begin());
    info.speech = record[mels_] != 0.0f;
    info.level_dbfs = record[mels_ + 1];
    return true;
}

std::size_t MelFrameQueue::size_frames() const noexcept { return ring_.size() / record_floats_; }

}  // namespace earshot::audio
