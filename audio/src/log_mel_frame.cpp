// LogMelFrame: window, KissFFT real FFT, power spectrum, sparse mel product and log10 per frame.
#include "log_mel_frame.h"

#include <kissfft/kiss_fftr.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace earshot::audio {

namespace {

// log10 floor of the mel power (reference §1.5).
constexpr double kMelPowerFloor = 1e-10;

}  // namespace

struct LogMelFrame::Fft {
    Fft() : cfg(kiss_fftr_alloc(kWhisperFftSamples, 0, nullptr, nullptr)), bins(kWhisperBins) {
        if (cfg == nullptr) {
            throw std::runtime_error("log-mel: KissFFT could not set up a real FFT of " +
                                     std::to_string(kWhisperFftSamples) + " points");
        }
    }
    ~Fft() { kiss_fftr_free(cfg); }
    Fft(const Fft&) = delete;
    Fft& operator=(const Fft&) = delete;

    kiss_fftr_cfg cfg;
    std::vector<kiss_fft_cpx> bins;  // [201]
};

LogMelFrame::LogMelFrame(int mels)
    : filters_(mels),
      fft_(std::make_unique<Fft>()),
      hann_(kWhisperFftSamples),
      windowed_(kWhisperFftSamples),
      power_(kWhisperBins) {
    // Periodic Hann: w[n] = 0.5 - 0.5 cos(2 pi n / N), denominator N (reference §1.2).
    for (std::size_t n = 0; n < hann_.size(); ++n) {
        const double phase = 2.0 * std::numbers::pi * static_cast<double>(n) / kWhisperFftSamples;
        hann_[n] = static_cast<float>(0.5 - 0.5 * std::cos(phase));
    }
}

LogMelFrame::~LogMelFrame() = default;

void LogMelFrame::compute(std::span<const float> samples, std::span<float> out) {
    for (std::size_t n = 0; n < windowed_.size(); ++n) windowed_[n] = samples[n] * hann_[n];
    kiss_fftr(fft_->cfg, windowed_.data(), fft_->bins.data());
    for (std::size_t k = 0; k < power_.size(); ++k) {
        const kiss_fft_cpx& x = fft_->bins[k];
        power_[k] = x.r * x.r + x.i * x.i;  // |X|^2, not |X|
    }
    // Mel power: only each filter's non-zero bins, float32 weights accumulated in double (the
    // zero weights elsewhere add nothing).
    const std::span<const float> weights = filters_.weights_f32();
    const auto stride = static_cast<std::size_t>(filters_.bins());
    for (int m = 0; m < filters_.mels(); ++m) {
        const float* row = weights.data() + static_cast<std::size_t>(m) * stride;
        double sum = 0.0;
        for (int k = filters_.first_bin(m); k < filters_.last_bin(m); ++k) {
            sum += static_cast<double>(row[k]) *
                   static_cast<double>(power_[static_cast<std::size_t>(k)]);
        }
        out[static_cast<std::size_t>(m)] =
            static_cast<float>(std::log10(std::max(sum, kMelPowerFloor)));
    }
}

}  // namespace earshot::audio
