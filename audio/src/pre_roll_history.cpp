// PreRollHistory: a plain overwriting ring; the newest capacity() samples of every push survive.
#include "earshot/audio/pre_roll_history.h"

#include <algorithm>
#include <cstring>

namespace earshot::audio {

PreRollHistory::PreRollHistory(std::size_t capacity_samples)
    : capacity_(capacity_samples),
      buffer_(capacity_samples > 0 ? new float[capacity_samples]() : nullptr) {}

void PreRollHistory::push(std::span<const float> samples) noexcept {
    if (capacity_ == 0 || samples.empty()) return;
    // Only the last capacity_ samples of a long push can survive it.
    if (samples.size() > capacity_) samples = samples.last(capacity_);
    const std::size_t first = std::min(samples.size(), capacity_ - next_);
    std::memcpy(buffer_.get() + next_, samples.data(), first * sizeof(float));
    std::memcpy(buffer_.get(), samples.data() + first, (samples.size() - first) * sizeof(float));
    next_ = (next_ + samples.size()) % capacity_;
    size_ = std::min(capacity_, size_ + samples.size());
}

void PreRollHistory::copy_to(std::vector<float>& out) const {
    out.resize(size_);
    if (size_ == 0) return;
    // The oldest kept sample sits size_ places before next_.
    const std::size_t start = (next_ + capacity_ - size_) % capacity_;
    const std::size_t first = std::min(size_, capacity_ - start);
    std::memcpy(out.data(), buffer_.get() + start, first * sizeof(float));
    std::memcpy(out.data() + first, buffer_.get(), (size_ - first) * sizeof(float));
}

}  // namespace earshot::audio
