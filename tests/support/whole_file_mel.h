// The log-mel of a whole file as long-form transcription takes it: the samples with one window of
// silence appended, normalized over all of it (openai transcribe(), reference §1.6). The tests'
// baseline for the streaming path (the app itself streams, StreamingMelSource).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "earshot/audio/log_mel.h"
#include "earshot/engine/backend/host_tensor.h"

namespace earshot::app {

// [Mels, N] with N = content frames + `frames`; the content frames are N - frames.
inline backend::HostTensor whole_file_mel(std::vector<float> samples, int64_t mels,
                                          int64_t frames) {
    constexpr int64_t kSamplesPerFrame = 160;  // hop (reference §1.1)
    samples.resize(samples.size() + static_cast<size_t>(frames * kSamplesPerFrame), 0.0F);
    audio::LogMel mel = audio::log_mel(samples, static_cast<int>(mels));
    return backend::HostTensor::f32({mel.mels, mel.frames}, std::move(mel.values));
}

}  // namespace earshot::app
