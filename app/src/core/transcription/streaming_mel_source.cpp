// StreamingMelSource: the first pass (length, damaged spans, global log-mel maximum) and the
// second (normalized frames as the seek loop reaches them), both through FileDecoder and
// LogMelStream, the streaming front end that the batch log_mel() itself runs.
#include "core/transcription/streaming_mel_source.h"

#include <algorithm>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "earshot/audio/file_speech_detector.h"

namespace earshot::app {

namespace {

constexpr int64_t kSamplesPerFrame = 160;  // hop (reference §1.1)
constexpr size_t kChunkSamples = 16000;    // 1 s of audio per read

// Pushes `count` zero samples (the silence whole_file_mel() appends) into `stream`.
void push_silence(audio::LogMelStream& stream, int64_t count, audio::FrameSink sink) {
    const std::vector<float> zeros(kChunkSamples, 0.0F);
    while (count > 0) {
        const auto n = static_cast<size_t>(std::min<int64_t>(count, kChunkSamples));
        stream.push(std::span<const float>(zeros.data(), n), sink);
        count -= static_cast<int64_t>(n);
    }
}

}  // namespace

StreamingMelSource::StreamingMelSource(const std::filesystem::path& path, int mels,
                                       int64_t padding_frames)
    : path_(path), mels_(mels), padding_frames_(padding_frames) {}

std::optional<StreamingMelSource> StreamingMelSource::open(
    const std::filesystem::path& path, int mels, int64_t padding_frames,
    const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
    StreamingMelSource source(path, mels, padding_frames);
    audio::FileDecoder decoder = audio::FileDecoder::open(path);
    audio::LogMelStream stream(mels);
    float max = -std::numeric_limits<float>::infinity();
    auto track = [&max](int64_t /*index*/, std::span<const float> frame) {
        for (float value : frame) max = std::max(max, value);
    };
    // Speech edges for the segment times.
    audio::FileSpeechDetector speech;
    std::vector<float> chunk(kChunkSamples);
    for (;;) {
        if (cancel != nullptr && cancel->load()) return std::nullopt;
        const size_t n = decoder.read(chunk);
        stream.push(std::span<const float>(chunk.data(), n), track);
        speech.push(std::span<const float>(chunk.data(), n));
        source.samples_ += static_cast<int64_t>(n);
        if (progress) progress(decoder.progress());
        if (n < chunk.size()) break;
    }
    push_silence(stream, padding_frames * kSamplesPerFrame, track);
    stream.finish(track);
    source.content_frames_ = source.samples_ / kSamplesPerFrame;
    source.clamp_floor_ = max - 8.0F;  // as audio::normalize_window (reference §1.5)
    source.damaged_spans_ = decoder.damaged_spans();
    source.speech_.hop_s = speech.hop_s();
    source.speech_.loud = speech.finish();
    return source;
}

double StreamingMelSource::audio_s() const {
    return static_cast<double>(samples_) / static_cast<double>(audio::FileDecoder::kSampleRateHz);
}

int64_t StreamingMelSource::held_frames() const {
    return static_cast<int64_t>(held_.size()) / mels_;
}

void StreamingMelSource::produce_until(int64_t end) {
    if (!stream_) {  // the second pass starts
        decoder_.emplace(audio::FileDecoder::open(path_));
        stream_.emplace(mels_);
    }
    // Frames before first_held_ (a seek past what was held) are not kept.
    auto keep = [this](int64_t index, std::span<const float> frame) {
        if (index < first_held_) return;
        for (float raw : frame) held_.push_back((std::max(raw, clamp_floor_) + 4.0F) / 4.0F);
    };
    std::vector<float> chunk(kChunkSamples, 0.0F);
    while (!stream_done_ && first_held_ + held_frames() < end) {
        if (decoder_) {
            const size_t n = decoder_->read(chunk);
            stream_->push(std::span<const float>(chunk.data(), n), keep);
            if (n == chunk.size()) continue;
            decoder_.reset();  // the file is closed as soon as it is read
            silence_left_ = padding_frames_ * kSamplesPerFrame;
            std::fill(chunk.begin(), chunk.end(), 0.0F);
        }
        // Then the silence whole_file_mel() appends, a chunk at a time, and the end.
        const auto n = static_cast<size_t>(std::min<int64_t>(silence_left_, kChunkSamples));
        stream_->push(std::span<const float>(chunk.data(), n), keep);
        silence_left_ -= static_cast<int64_t>(n);
        if (silence_left_ == 0) {
            stream_->finish(keep);
            stream_done_ = true;
        }
    }
}

backend::HostTensor StreamingMelSource::window(int64_t seek, int64_t frames) {
    if (seek < first_held_) {
        throw std::logic_error("StreamingMelSource: window at frame " + std::to_string(seek) +
                               " after one at frame " + std::to_string(first_held_));
    }
    // Forget the frames before `seek`.
    const int64_t drop = std::min(seek - first_held_, held_frames());
    held_.erase(held_.begin(), held_.begin() + drop * mels_);
    first_held_ = seek;
    produce_until(seek + frames);

    backend::HostTensor window = backend::HostTensor::f32({1, mels_, frames}, 0.0F);
    const std::span<float> target = window.f32_values();  // [1, Mels, frames]
    const int64_t count = std::min(frames, held_frames());
    for (int64_t t = 0; t < count; ++t) {
        for (int64_t m = 0; m < mels_; ++m) {
            target[static_cast<size_t>(m * frames + t)] = held_[static_cast<size_t>(t * mels_ + m)];
        }
    }
    return window;
}

}  // namespace earshot::app
