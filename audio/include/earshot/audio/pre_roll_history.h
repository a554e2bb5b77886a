// PreRollHistory: the last few seconds of a sample stream, kept in a fixed ring that overwrites
// its oldest samples; the audio just before the user pressed Start.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace earshot::audio {

// Allocated once at construction; push() never allocates. Not synchronised: one thread at a time
// (PreRollCapture guards it).
class PreRollHistory {
public:
    explicit PreRollHistory(std::size_t capacity_samples);

    PreRollHistory(const PreRollHistory&) = delete;
    PreRollHistory& operator=(const PreRollHistory&) = delete;

    // Appends `samples`; past capacity() the oldest ones are dropped.
    void push(std::span<const float> samples) noexcept;
    // The kept samples, oldest first, into `out` (resized to size()).
    void copy_to(std::vector<float>& out) const;
    void clear() noexcept { size_ = 0; }

    std::size_t size() const noexcept { return size_; }
    std::size_t capacity() const noexcept { return capacity_; }

private:
    const std::size_t capacity_;
    const std::unique_ptr<float[]> buffer_;
    std::size_t next_ = 0;  // where the next sample goes
    std::size_t size_ = 0;  // kept samples, at most capacity_
};

}  // namespace earshot::audio
