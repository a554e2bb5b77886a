// StreamResampler: mono float samples at one rate to another (16 kHz for Whisper), chunk by chunk,
// with libswresample's filter state carried across chunks.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

struct SwrContext;  // libswresample's converter

namespace earshot::audio {

class StreamResampler {
public:
    // Whisper's input rate (reference §1: 16 kHz mono).
    static constexpr int kWhisperRateHz = 16000;

    // Sets up the converter once. Throws std::invalid_argument for non-positive rates and
    // std::runtime_error when libswresample cannot be initialised.
    StreamResampler(int input_rate_hz, int output_rate_hz = kWhisperRateHz);
    ~StreamResampler();
    StreamResampler(const StreamResampler&) = delete;
    StreamResampler& operator=(const StreamResampler&) = delete;

    // Converts `input` and returns the output samples now ready (a view into an internal buffer,
    // valid until the next call). Allocates only when a chunk is larger than any before it.
    std::span<const float> push(std::span<const float> input);
    // Returns the samples still held in the filter; call once at the end of the stream.
    std::span<const float> finish();

    int input_rate_hz() const noexcept { return input_rate_hz_; }
    int output_rate_hz() const noexcept { return output_rate_hz_; }

private:
    std::span<const float> convert(const float* input, int input_samples);

    struct SwrDeleter {
        void operator()(::SwrContext* context) const noexcept;
    };

    int input_rate_hz_;
    int output_rate_hz_;
    std::unique_ptr<::SwrContext, SwrDeleter> context_;
    std::vector<float> output_;
};

}  // namespace earshot::audio
