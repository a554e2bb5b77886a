// LogMelFrame: one raw log-mel frame from 400 samples (Hann window, real FFT, power, Slaney mel
// filters, log10 with the 1e-10 floor). The single kernel behind every log-mel mode.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "earshot/audio/mel_filterbank.h"

namespace earshot::audio {

class LogMelFrame {
public:
    explicit LogMelFrame(int mels);
    ~LogMelFrame();
    LogMelFrame(const LogMelFrame&) = delete;
    LogMelFrame& operator=(const LogMelFrame&) = delete;

    int mels() const { return filters_.mels(); }

    // samples: [400] (already padded); out: [Mels] = log10(max(filters . |FFT(w * samples)|^2,
    // 1e-10)). No allocation.
    void compute(std::span<const float> samples, std::span<float> out);

private:
    struct Fft;  // KissFFT state and its [201] complex output, kept out of this header

    MelFilterbank filters_;
    std::unique_ptr<Fft> fft_;
    std::vector<float> hann_;      // [400], periodic
    std::vector<float> windowed_;  // [400]
    std::vector<float> power_;     // [201]
};

}  // namespace earshot::audio
