// MelFilterbank: the Slaney mel filters Whisper's front end multiplies the power spectrum by
// (librosa's defaults), built in double for any number of mels.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace earshot::audio {

// Whisper's STFT geometry (reference §1.1): 16 kHz, 400-point FFT, hop 160, 201 one-sided bins.
inline constexpr int kWhisperSampleRateHz = 16000;
inline constexpr int kWhisperFftSamples = 400;
inline constexpr int kWhisperHopSamples = 160;
inline constexpr int kWhisperBins = kWhisperFftSamples / 2 + 1;

// A triangular mel filterbank on the one-sided spectrum, [Mels][Bins] row-major.
//
// Built as librosa's mel filter function with sr = sample_rate_hz, n_fft = fft_samples and every
// other argument at its default: Slaney mel scale (linear below 1 kHz, logarithmic above), mel
// points equally spaced from fmin = 0 to fmax = sample_rate_hz / 2, Slaney area normalisation
// (each row times 2 / (f[i + 2] - f[i])). Whisper's mel_80 and mel_128 are the float32 roundings
// of this for 16 kHz and n_fft = 400 (reference §1.4).
class MelFilterbank {
public:
    explicit MelFilterbank(int mels, int sample_rate_hz = kWhisperSampleRateHz,
                           int fft_samples = kWhisperFftSamples);

    int mels() const { return mels_; }
    int bins() const { return bins_; }

    // [Mels][Bins] in double, as computed.
    std::span<const double> weights_f64() const { return weights_f64_; }
    // [Mels][Bins] rounded to float32 (what Whisper's mel_filters.npz stores).
    std::span<const float> weights_f32() const { return weights_f32_; }

    double weight(int mel, int bin) const {
        return weights_f64_[static_cast<std::size_t>(mel) * static_cast<std::size_t>(bins_) +
                            static_cast<std::size_t>(bin)];
    }

    // The bins [first, last) where row `mel` is non-zero (first == last for an all-zero row,
    // which only too many mels for the FFT size give).
    int first_bin(int mel) const { return first_bin_[static_cast<std::size_t>(mel)]; }
    int last_bin(int mel) const { return last_bin_[static_cast<std::size_t>(mel)]; }

private:
    int mels_;
    int bins_;
    std::vector<double> weights_f64_;  // [Mels][Bins]
    std::vector<float> weights_f32_;   // [Mels][Bins]
    std::vector<int> first_bin_;       // [Mels]
    std::vector<int> last_bin_;        // [Mels]
};

// Slaney mel scale (librosa htk=False): mel = f / (200 / 3) below 1000 Hz, 15 + ln(f / 1000) /
// (ln(6.4) / 27) above.
double slaney_hz_to_mel(double hz);
double slaney_mel_to_hz(double mel);

}  // namespace earshot::audio
