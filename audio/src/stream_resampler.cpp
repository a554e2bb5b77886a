// StreamResampler: libswresample set up for mono float to mono float.
#include "earshot/audio/stream_resampler.h"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
}

#include <stdexcept>
#include <string>

namespace earshot::audio {

namespace {

std::string av_error_text(int status) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(status, text, sizeof(text));
    return text;
}

}  // namespace

void StreamResampler::SwrDeleter::operator()(SwrContext* context) const noexcept {
    swr_free(&context);
}

StreamResampler::StreamResampler(int input_rate_hz, int output_rate_hz)
    : input_rate_hz_(input_rate_hz), output_rate_hz_(output_rate_hz) {
    if (input_rate_hz <= 0 || output_rate_hz <= 0) {
        throw std::invalid_argument("StreamResampler: rates must be positive, got " +
                                    std::to_string(input_rate_hz) + " Hz -> " +
                                    std::to_string(output_rate_hz) + " Hz");
    }
    AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
    SwrContext* context = nullptr;
    int status = swr_alloc_set_opts2(&context, &mono, AV_SAMPLE_FMT_FLT, output_rate_hz, &mono,
                                     AV_SAMPLE_FMT_FLT, input_rate_hz, 0, nullptr);
    if (status >= 0) status = swr_init(context);
    if (status < 0) {
        swr_free(&context);
        throw std::runtime_error(
            "StreamResampler: libswresample setup for " + std::to_string(input_rate_hz) +
            " Hz -> " + std::to_string(output_rate_hz) + " Hz failed: " + av_error_text(status));
    }
    context_.reset(context);
}

StreamResampler::~StreamResampler() = default;

std::span<const float> StreamResampler::push(std::span<const float> input) {
    if (input.empty()) return {};
    return convert(input.data(), static_cast<int>(input.size()));
}

std::span<const float> StreamResampler::finish() { return convert(nullptr, 0); }

std::span<const float> StreamResampler::convert(const float* input, int input_samples) {
    // An upper bound on what this call can return, filter delay included.
    const int capacity = swr_get_out_samples(context_.get(), input_samples);
    if (capacity <= 0) return {};
    if (output_.size() < static_cast<std::size_t>(capacity)) {
        output_.resize(static_cast<std::size_t>(capacity));
    }
    auto* out = reinterpret_cast<std::uint8_t*>(output_.data());
    const auto* in = reinterpret_cast<const std::uint8_t*>(input);
    const int written = swr_convert(context_.get(), &out, capacity,
                                    input != nullptr ? &in : nullptr, input_samples);
    if (written < 0) {
        throw std::runtime_error("StreamResampler: conversion failed: " + av_error_text(written));
    }
    return {output_.data(), static_cast<std::size_t>(written)};
}

}  // namespace earshot::audio
