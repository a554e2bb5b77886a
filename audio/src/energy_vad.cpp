// EnergyVad: hop levels (plain and pre-emphasised), the adaptive floor and the hangover.
#include "earshot/audio/energy_vad.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace earshot::audio {

namespace {

// 10 log10(mean square + 1e-12): -120 dBFS for an all-zero hop.
double mean_square_dbfs(double sum_squares, std::size_t count) {
    return 10.0 * std::log10(sum_squares / static_cast<double>(count) + 1e-12);
}

EnergyVadOptions checked(EnergyVadOptions options) {
    auto fail = [](const std::string& what) { throw std::invalid_argument("energy VAD: " + what); };
    if (options.hop_samples < 1) fail("hop_samples must be at least 1");
    if (options.sample_rate_hz < 1) fail("sample_rate_hz must be at least 1");
    if (!(options.hangover_s >= 0.0)) fail("hangover_s must not be negative");
    if (!(options.floor_rise_db_per_s >= 0.0)) fail("floor_rise_db_per_s must not be negative");
    if (!std::isfinite(options.margin_db) || !std::isfinite(options.min_speech_dbfs)) {
        fail("margin_db and min_speech_dbfs must be finite");
    }
    return options;
}

}  // namespace

EnergyVad::EnergyVad(EnergyVadOptions options)
    : options_(checked(options)),
      hangover_samples_(std::llround(options_.hangover_s * options_.sample_rate_hz)) {}

bool EnergyVad::push_hop(std::span<const float> hop) {
    if (hop.empty()) return speech_;
    double plain = 0.0;
    double weighted = 0.0;
    double previous = previous_sample_;
    for (const float sample : hop) {
        const double x = sample;
        const double e = x - kPreEmphasis * previous;
        plain += x * x;
        weighted += e * e;
        previous = x;
    }
    previous_sample_ = previous;
    level_dbfs_ = mean_square_dbfs(plain, hop.size());
    weighted_level_dbfs_ = mean_square_dbfs(weighted, hop.size());

    bool loud = false;
    if (level_dbfs_ >= kNoSignalDbfs) {
        if (!floor_set_) {
            floor_dbfs_ = weighted_level_dbfs_;
            floor_set_ = true;
        } else {
            loud = weighted_level_dbfs_ > floor_dbfs_ + options_.margin_db &&
                   weighted_level_dbfs_ > options_.min_speech_dbfs;
            const double hop_s = static_cast<double>(hop.size()) / options_.sample_rate_hz;
            floor_dbfs_ =
                std::min(weighted_level_dbfs_, floor_dbfs_ + options_.floor_rise_db_per_s * hop_s);
        }
    }

    if (loud) {
        hangover_left_samples_ = hangover_samples_;
        speech_ = true;
    } else if (hangover_left_samples_ > 0) {
        hangover_left_samples_ -= static_cast<std::int64_t>(hop.size());
        speech_ = true;
    } else {
        speech_ = false;
    }
    return speech_;
}

void EnergyVad::reset() {
    previous_sample_ = 0.0;
    level_dbfs_ = kSilenceDbfs;
    weighted_level_dbfs_ = kSilenceDbfs;
    floor_dbfs_ = kSilenceDbfs;
    floor_set_ = false;
    hangover_left_samples_ = 0;
    speech_ = false;
}

}  // namespace earshot::audio
