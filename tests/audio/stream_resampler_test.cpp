// StreamResampler: rates, lengths and content of libswresample's mono float conversion, and that
// chunking does not change the output.
#include "earshot/audio/stream_resampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace earshot::audio {
namespace {

std::vector<float> sine(double frequency_hz, int rate_hz, std::size_t samples) {
    std::vector<float> out(samples);
    for (std::size_t i = 0; i < samples; ++i) {
        out[i] = static_cast<float>(
            0.5 * std::sin(2.0 * std::numbers::pi * frequency_hz * static_cast<double>(i) /
                           static_cast<double>(rate_hz)));
    }
    return out;
}

std::vector<float> resample_in_chunks(const std::vector<float>& input, int rate_hz,
                                      std::size_t chunk_samples) {
    StreamResampler resampler(rate_hz);
    std::vector<float> out;
    for (std::size_t start = 0; start < input.size(); start += chunk_samples) {
        const std::size_t n = std::min(chunk_samples, input.size() - start);
        const auto part = resampler.push({input.data() + start, n});
        out.insert(out.end(), part.begin(), part.end());
    }
    const auto tail = resampler.finish();
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

TEST(StreamResampler, OneSecondAt44100GivesOneSecondAt16000) {
    const std::vector<float> input = sine(440.0, 44100, 44100);
    const std::vector<float> out = resample_in_chunks(input, 44100, 512);
    // 44100 -> 16000 exactly, once the filter tail is flushed.
    EXPECT_EQ(out.size(), 16000u);
}

TEST(StreamResampler, KeepsTheSineAt16000) {
    const std::vector<float> out = resample_in_chunks(sine(440.0, 48000, 48000), 48000, 480);
    ASSERT_EQ(out.size(), 16000u);
    // Away from the edges, the output is the same sine sampled at 16 kHz.
    const std::vector<float> expected = sine(440.0, 16000, 16000);
    double error_energy = 0;
    double signal_energy = 0;
    for (std::size_t i = 200; i < 15800; ++i) {
        const double e = static_cast<double>(out[i]) - static_cast<double>(expected[i]);
        error_energy += e * e;
        signal_energy += static_cast<double>(expected[i]) * static_cast<double>(expected[i]);
    }
    // Better than 40 dB signal to error.
    EXPECT_LT(error_energy / signal_energy, 1e-4);
}

TEST(StreamResampler, ChunkSizesDoNotChangeTheOutput) {
    const std::vector<float> input = sine(1000.0, 22050, 22050);
    const std::vector<float> whole = resample_in_chunks(input, 22050, input.size());
    const std::vector<float> small = resample_in_chunks(input, 22050, 97);
    ASSERT_EQ(whole.size(), small.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
        ASSERT_NEAR(whole[i], small[i], 1e-6f) << "sample " << i;
    }
}

TEST(StreamResampler, SameRatePassesSamplesThrough) {
    const std::vector<float> input = sine(300.0, 16000, 1600);
    const std::vector<float> out = resample_in_chunks(input, 16000, 100);
    ASSERT_EQ(out.size(), input.size());
    for (std::size_t i = 0; i < input.size(); ++i) ASSERT_FLOAT_EQ(out[i], input[i]);
}

TEST(StreamResampler, RejectsNonPositiveRates) {
    EXPECT_THROW(StreamResampler(0), std::invalid_argument);
    EXPECT_THROW(StreamResampler(44100, -16000), std::invalid_argument);
}

}  // namespace
}  // namespace earshot::audio
