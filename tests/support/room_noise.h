// Deterministic 16 kHz test signals for voice-activity tests: digital silence, white and brown
// noise, mains hum and a quiet-office mix of them. Levels are RMS in dBFS (0 dBFS = RMS 1.0).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <span>
#include <vector>

namespace earshot::test {

inline constexpr int kNoiseRateHz = 16000;

namespace room_noise_detail {

inline std::size_t sample_count(double seconds) {
    return seconds <= 0.0 ? 0 : static_cast<std::size_t>(std::llround(seconds * kNoiseRateHz));
}

// Standard normal values from mt19937_64 (whose output the standard fixes) by Box-Muller, so the
// same seed gives the same signal with every standard library.
class Gaussian {
public:
    explicit Gaussian(std::uint64_t seed) : engine_(seed) {}
    double operator()() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        // (0, 1]: never log(0).
        const double u1 = (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;
        const double u2 = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
        const double radius = std::sqrt(-2.0 * std::log(u1));
        spare_ = radius * std::sin(2.0 * std::numbers::pi * u2);
        has_spare_ = true;
        return radius * std::cos(2.0 * std::numbers::pi * u2);
    }
    // Uniform in [0, 1).
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

private:
    std::mt19937_64 engine_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

inline double rms(std::span<const float> x) {
    double sum = 0.0;
    for (const float sample : x) {
        const double v = sample;
        sum += v * v;
    }
    return x.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(x.size()));
}

// Scales `x` so that its RMS is exactly `dbfs` (a silent signal stays silent).
inline void scale_to_dbfs(std::vector<double>& x, double dbfs) {
    double sum = 0.0;
    for (const double v : x) sum += v * v;
    if (x.empty() || sum == 0.0) return;
    const double gain =
        std::pow(10.0, dbfs / 20.0) / std::sqrt(sum / static_cast<double>(x.size()));
    for (double& v : x) v *= gain;
}

inline std::vector<float> to_float(const std::vector<double>& x) {
    return std::vector<float>(x.begin(), x.end());
}

inline std::vector<double> white(std::size_t n, std::uint64_t seed) {
    Gaussian gaussian(seed);
    std::vector<double> x(n);
    for (double& v : x) v = gaussian();
    return x;
}

// White noise through a leaky integrator with its corner at 20 Hz: a 1/f^2 (-6 dB per octave)
// spectrum across the audible band, without the unbounded wander of a pure random walk. Starts
// in the stationary state, so the level holds from the first sample.
inline std::vector<double> brown(std::size_t n, std::uint64_t seed) {
    constexpr double kCornerHz = 20.0;
    const double a = std::exp(-2.0 * std::numbers::pi * kCornerHz / kNoiseRateHz);
    Gaussian gaussian(seed);
    std::vector<double> x(n);
    double y = gaussian() / std::sqrt(1.0 - a * a);
    for (double& v : x) {
        y = a * y + gaussian();
        v = y;
    }
    return x;
}

// A fundamental and its 2nd to 4th harmonics (amplitudes 1, 0.5, 0.3, 0.2 with fixed phases).
inline std::vector<double> hum(std::size_t n, double hz) {
    constexpr double kAmplitudes[] = {1.0, 0.5, 0.3, 0.2};
    constexpr double kPhases[] = {0.0, 0.7, 1.9, 2.6};
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / kNoiseRateHz;
        double v = 0.0;
        for (int h = 0; h < 4; ++h) {
            v += kAmplitudes[h] * std::sin(2.0 * std::numbers::pi * hz * (h + 1) * t + kPhases[h]);
        }
        x[i] = v;
    }
    return x;
}

}  // namespace room_noise_detail

// All zeros.
inline std::vector<float> digital_silence(double seconds) {
    return std::vector<float>(room_noise_detail::sample_count(seconds), 0.0f);
}

// Gaussian white noise at `dbfs` RMS.
inline std::vector<float> white_noise(double seconds, double dbfs, std::uint64_t seed) {
    auto x = room_noise_detail::white(room_noise_detail::sample_count(seconds), seed);
    room_noise_detail::scale_to_dbfs(x, dbfs);
    return room_noise_detail::to_float(x);
}

// Brown (1/f^2 above 20 Hz) noise at `dbfs` RMS: rumble, ventilation, traffic.
inline std::vector<float> brown_noise(double seconds, double dbfs, std::uint64_t seed) {
    auto x = room_noise_detail::brown(room_noise_detail::sample_count(seconds), seed);
    room_noise_detail::scale_to_dbfs(x, dbfs);
    return room_noise_detail::to_float(x);
}

// Mains hum: `hz` (50 or 60) with three harmonics, at `dbfs` RMS.
inline std::vector<float> mains_hum(double seconds, double dbfs, double hz = 50.0) {
    auto x = room_noise_detail::hum(room_noise_detail::sample_count(seconds), hz);
    room_noise_detail::scale_to_dbfs(x, dbfs);
    return room_noise_detail::to_float(x);
}

// A quiet office: brown noise at -48, white noise at -52 and 50 Hz hum at -56 dBFS, the mix
// scaled to -45 dBFS RMS, then a slow random level drift: a gain curve through a random point
// in [-3, +3] dB every 2 s, joined by half-cosine ramps.
inline std::vector<float> room_noise(double seconds, std::uint64_t seed) {
    namespace d = room_noise_detail;
    const std::size_t n = d::sample_count(seconds);
    auto brown = d::brown(n, seed * 3 + 1);
    auto white = d::white(n, seed * 3 + 2);
    auto hum = d::hum(n, 50.0);
    d::scale_to_dbfs(brown, -48.0);
    d::scale_to_dbfs(white, -52.0);
    d::scale_to_dbfs(hum, -56.0);
    std::vector<double> mix(n);
    for (std::size_t i = 0; i < n; ++i) mix[i] = brown[i] + white[i] + hum[i];
    d::scale_to_dbfs(mix, -45.0);

    constexpr std::size_t kKnotSamples = 2 * kNoiseRateHz;
    d::Gaussian random(seed * 3 + 3);
    std::vector<double> knots_db(n / kKnotSamples + 2);
    for (double& k : knots_db) k = -3.0 + 6.0 * random.uniform();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = i / kKnotSamples;
        const double f = static_cast<double>(i % kKnotSamples) / kKnotSamples;
        const double w = 0.5 - 0.5 * std::cos(std::numbers::pi * f);
        const double gain_db = (1.0 - w) * knots_db[k] + w * knots_db[k + 1];
        mix[i] *= std::pow(10.0, gain_db / 20.0);
    }
    return d::to_float(mix);
}

// RMS of `x` in dBFS (-inf for silence).
inline double rms_dbfs(std::span<const float> x) {
    return 20.0 * std::log10(room_noise_detail::rms(x));
}

}  // namespace earshot::test
