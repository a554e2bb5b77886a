// whole_file_mel(): silence padding, then the batch log-mel of the audio module.
#include "whole_file_mel.h"

#include <utility>

#include "earshot/audio/log_mel.h"

namespace earshot::app {

namespace {
constexpr int64_t kSamplesPerFrame = 160;  // hop (reference §1.1)
}

backend::HostTensor whole_file_mel(std::vector<float> samples, int64_t mels, int64_t frames) {
    samples.resize(samples.size() + static_cast<size_t>(frames * kSamplesPerFrame), 0.0F);
    audio::LogMel mel = audio::log_mel(samples, static_cast<int>(mels));
    return backend::HostTensor::f32({mel.mels, mel.frames}, std::move(mel.values));
}

}  // namespace earshot::app
