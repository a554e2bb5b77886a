// FileSpeechDetector: EnergyVad's level per hop, then a floor from the quietest hop around each.
#include "earshot/audio/file_speech_detector.h"

#include <deque>
#include <stdexcept>

namespace earshot::audio {

FileSpeechDetector::FileSpeechDetector(FileSpeechOptions options) : options_(options) {
    if (options_.hop_samples < 1 || options_.sample_rate_hz < 1) {
        throw std::invalid_argument("FileSpeechDetector: hop and sample rate must be >= 1");
    }
    if (options_.floor_window_s < 0.0) {
        throw std::invalid_argument("FileSpeechDetector: floor_window_s must be >= 0");
    }
    EnergyVadOptions meter;
    meter.hop_samples = options_.hop_samples;
    meter.sample_rate_hz = options_.sample_rate_hz;
    meter_ = EnergyVad(meter);
    hop_.reserve(static_cast<size_t>(options_.hop_samples));
}

void FileSpeechDetector::push(std::span<const float> samples) {
    for (float sample : samples) {
        hop_.push_back(sample);
        if (hop_.size() == static_cast<size_t>(options_.hop_samples)) measure_hop();
    }
}

void FileSpeechDetector::measure_hop() {
    meter_.push_hop(hop_);
    weighted_dbfs_.push_back(meter_.level_dbfs() < EnergyVad::kNoSignalDbfs
                                 ? static_cast<float>(EnergyVad::kSilenceDbfs)
                                 : static_cast<float>(meter_.weighted_level_dbfs()));
    hop_.clear();
}

std::vector<uint8_t> FileSpeechDetector::finish() {
    if (!hop_.empty()) measure_hop();
    const size_t hops = weighted_dbfs_.size();
    const auto reach = static_cast<size_t>(options_.floor_window_s * options_.sample_rate_hz /
                                               static_cast<double>(options_.hop_samples) +
                                           0.5);
    auto has_signal = [&](size_t i) {
        return static_cast<double>(weighted_dbfs_[i]) > EnergyVad::kSilenceDbfs;
    };
    // Sliding minimum over the hops with signal in [i - reach, i + reach]: a deque of indices
    // whose levels increase from front to back.
    std::vector<uint8_t> loud(hops, 0);
    std::deque<size_t> window;
    size_t next = 0;  // the next hop to enter the window
    for (size_t i = 0; i < hops; ++i) {
        for (; next < hops && next <= i + reach; ++next) {
            if (!has_signal(next)) continue;
            while (!window.empty() && weighted_dbfs_[window.back()] >= weighted_dbfs_[next]) {
                window.pop_back();
            }
            window.push_back(next);
        }
        while (!window.empty() && window.front() + reach < i) window.pop_front();
        if (!has_signal(i) || window.empty()) continue;
        const auto level = static_cast<double>(weighted_dbfs_[i]);
        const auto floor = static_cast<double>(weighted_dbfs_[window.front()]);
        loud[i] = level > floor + options_.margin_db && level > options_.min_speech_dbfs ? 1 : 0;
    }
    weighted_dbfs_.clear();
    weighted_dbfs_.shrink_to_fit();
    return loud;
}

}  // namespace earshot::audio
