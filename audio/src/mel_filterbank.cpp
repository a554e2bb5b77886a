// The Slaney mel filterbank (librosa defaults), built in double and rounded to float32.
#include "earshot/audio/mel_filterbank.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace earshot::audio {

namespace {

// Slaney scale constants (librosa hz_to_mel with htk=False; reference §1.4).
constexpr double kLinearHzPerMel = 200.0 / 3.0;
constexpr double kLogStartHz = 1000.0;
constexpr double kLogStartMel = kLogStartHz / kLinearHzPerMel;  // 15
const double kLogStepPerMel = std::log(6.4) / 27.0;

}  // namespace

double slaney_hz_to_mel(double hz) {
    if (hz < kLogStartHz) return hz / kLinearHzPerMel;
    return kLogStartMel + std::log(hz / kLogStartHz) / kLogStepPerMel;
}

double slaney_mel_to_hz(double mel) {
    if (mel < kLogStartMel) return kLinearHzPerMel * mel;
    return kLogStartHz * std::exp(kLogStepPerMel * (mel - kLogStartMel));
}

MelFilterbank::MelFilterbank(int mels, int sample_rate_hz, int fft_samples)
    : mels_(mels), bins_(fft_samples / 2 + 1) {
    if (mels < 1 || sample_rate_hz < 1 || fft_samples < 2) {
        throw std::invalid_argument(
            "mel filterbank: needs mels >= 1, a positive sample rate and fft_samples >= 2; got "
            "mels " +
            std::to_string(mels) + ", " + std::to_string(sample_rate_hz) + " Hz, fft_samples " +
            std::to_string(fft_samples));
    }
    const auto points = static_cast<std::size_t>(mels) + 2;
    const auto bins = static_cast<std::size_t>(bins_);

    // Band edges f_0 .. f_{Mels+1}: equally spaced in mel on [mel(0), mel(sr / 2)], numpy
    // linspace style (start + i * step, the last point exactly the end).
    const double mel_low = slaney_hz_to_mel(0.0);
    const double mel_high = slaney_hz_to_mel(sample_rate_hz / 2.0);
    const double mel_step = (mel_high - mel_low) / static_cast<double>(points - 1);
    std::vector<double> edges_hz(points);  // [Mels + 2]
    for (std::size_t i = 0; i < points; ++i) {
        const double mel = i + 1 == points ? mel_high : mel_low + static_cast<double>(i) * mel_step;
        edges_hz[i] = slaney_mel_to_hz(mel);
    }

    weights_f64_.assign(static_cast<std::size_t>(mels) * bins, 0.0);
    weights_f32_.assign(weights_f64_.size(), 0.0f);
    first_bin_.assign(static_cast<std::size_t>(mels), 0);
    last_bin_.assign(static_cast<std::size_t>(mels), 0);
    const double hz_per_bin = static_cast<double>(sample_rate_hz) / fft_samples;
    for (std::size_t m = 0; m < static_cast<std::size_t>(mels); ++m) {
        const double lower_width = edges_hz[m + 1] - edges_hz[m];
        const double upper_width = edges_hz[m + 2] - edges_hz[m + 1];
        const double area_norm = 2.0 / (edges_hz[m + 2] - edges_hz[m]);  // Slaney
        int first = bins_;
        int last = 0;
        for (std::size_t k = 0; k < bins; ++k) {
            const double hz = static_cast<double>(k) * hz_per_bin;
            const double rising = (hz - edges_hz[m]) / lower_width;
            const double falling = (edges_hz[m + 2] - hz) / upper_width;
            const double w = std::max(0.0, std::min(rising, falling)) * area_norm;
            weights_f64_[m * bins + k] = w;
            weights_f32_[m * bins + k] = static_cast<float>(w);
            if (w != 0.0) {
                first = std::min(first, static_cast<int>(k));
                last = static_cast<int>(k) + 1;
            }
        }
        if (first >= last) first = last = 0;  // an empty row (too many mels for the FFT size)
        first_bin_[m] = first;
        last_bin_[m] = last;
    }
}

}  // namespace earshot::audio
