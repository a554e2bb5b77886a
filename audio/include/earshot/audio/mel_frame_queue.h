// MelFrameQueue: the lock-free single-producer/single-consumer queue of raw log-mel frames (with
// their voice-activity flag and level) from the audio thread to the engine thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "earshot/audio/spsc_ring.h"

namespace earshot::audio {

// What the audio thread knew about a frame's 10 ms hop when it queued the frame.
struct MelFrameInfo {
    bool speech = false;      // the voice-activity decision (EnergyVad)
    float level_dbfs = 0.0f;  // the hop's plain level
};

// Frames travel through an SpscRing as records of Mels + 2 floats: [raw frame..., speech (0 or
// 1), level_dbfs]. The producer writes a record only when the ring has room for all of it, and the
// consumer reads one whole record at a time, so records never split and the queue holds whole
// frames only. A full queue drops the new frame (the engine thread fell behind) and counts it.
//
// Threads: push() on one producer thread, pop() on one consumer thread; both are wait-free and
// never allocate. The rest may be called from any thread.
class MelFrameQueue {
public:
    // Holds up to `capacity_frames` frames (at least 1) of `mels` values (at least 1); throws
    // std::invalid_argument otherwise.
    MelFrameQueue(int mels, std::size_t capacity_frames);

    MelFrameQueue(const MelFrameQueue&) = delete;
    MelFrameQueue& operator=(const MelFrameQueue&) = delete;

    // Producer: false (and dropped_frames() + 1) when full. Wait-free, no allocation. A frame whose
    // size is not mels() is a caller bug and aborts.
    bool push(std::span<const float> raw_frame /* [Mels] */, MelFrameInfo info) noexcept;

    // Consumer: copies the oldest frame into raw_frame ([Mels]) and its info; false when empty.
    bool pop(std::span<float> raw_frame /* [Mels] */, MelFrameInfo& info) noexcept;

    std::size_t size_frames() const noexcept;  // snapshot; exact on either end's thread
    std::size_t capacity_frames() const noexcept { return capacity_frames_; }
    std::uint64_t dropped_frames() const noexcept {
        return dropped_frames_.load(std::memory_order_relaxed);
    }
    int mels() const noexcept { return mels_; }

private:
    const int mels_;
    const std::size_t record_floats_;  // mels_ + 2
    const std::size_t capacity_frames_;
    SpscRing ring_;
    const std::unique_ptr<float[]> push_record_;  // [Mels + 2], producer only
    const std::unique_ptr<float[]> pop_record_;   // [Mels + 2], consumer only
    std::atomic<std::uint64_t> dropped_frames_{0};
};

}  // namespace earshot::audio
