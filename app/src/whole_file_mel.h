// The log-mel of a whole file as long-form transcription takes it: the samples with one window of
// silence appended, normalized over all of it (openai transcribe(), reference §1.6).
#pragma once

#include <cstdint>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"

namespace earshot::app {

// [Mels, N] with N = content frames + `frames`; the content frames are N - frames.
backend::HostTensor whole_file_mel(std::vector<float> samples, int64_t mels, int64_t frames);

}  // namespace earshot::app
