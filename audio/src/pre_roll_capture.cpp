// PreRollCapture: the idle microphone's audio thread either keeps the newest samples or forwards
// them to the attached dictation session.
#include "earshot/audio/pre_roll_capture.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace earshot::audio {

PreRollCapture::PreRollCapture(double seconds, int output_rate_hz)
    : seconds_(std::max(0.0, seconds)),
      history_(static_cast<std::size_t>(std::lround(seconds_ * output_rate_hz))),
      capture_([this](std::span<const float> samples) { on_samples(samples); }) {
    taken_.reserve(history_.capacity());
}

PreRollCapture::~PreRollCapture() { capture_.stop(); }

CaptureEvent PreRollCapture::start(const CaptureOptions& options) {
    capture_.stop();
    {
        const std::lock_guard lock(mutex_);
        history_.clear();
    }
    return capture_.start(options);
}

void PreRollCapture::stop() { capture_.stop(); }

std::size_t PreRollCapture::kept_samples() const {
    const std::lock_guard lock(mutex_);
    return history_.size();
}

void PreRollCapture::attach(SampleConsumer sink) {
    const std::lock_guard lock(mutex_);
    history_.copy_to(taken_);
    history_.clear();
    if (!taken_.empty()) sink(taken_);
    sink_ = std::move(sink);
}

void PreRollCapture::detach() {
    const std::lock_guard lock(mutex_);
    sink_ = nullptr;
    history_.clear();
}

bool PreRollCapture::attached() const {
    const std::lock_guard lock(mutex_);
    return static_cast<bool>(sink_);
}

void PreRollCapture::on_samples(std::span<const float> samples) {
    const std::lock_guard lock(mutex_);
    if (sink_) {
        sink_(samples);
    } else {
        history_.push(samples);
    }
}

}  // namespace earshot::audio
