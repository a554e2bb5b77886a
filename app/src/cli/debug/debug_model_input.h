// What `earshot debug tap` and `earshot debug compare` feed a model: one window's log-mel from
// an audio file or a .npy, checked against the model's [Mels, Frames]; token ids from
// `--tokens`; the backend a name spells.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/plan_listing.h"

namespace earshot::model {
struct WhisperCheckpoint;
}

namespace earshot::app {

// mel [1, Mels, Frames] for the model: `mel_path` (float32 [Mels, Frames] or [1, Mels, Frames])
// or the first window of `audio_path`. Throws std::invalid_argument naming both shapes when the
// .npy's differs from the model's ("the mel is [80, 200], the model takes [80, 3000]"), and the
// reader's or decoder's error for a file that cannot be read.
backend::HostTensor model_mel(const model::WhisperCheckpoint& checkpoint,
                              const std::string& audio_path, const std::string& mel_path);

// "50258,50259" -> ids, each inside 0 .. vocab - 1; empty text: the start of a transcript
// (start of transcript, English, transcribe, no timestamps) when the vocabulary has those
// tokens, else [0]. Throws std::invalid_argument naming the bad item.
std::vector<int32_t> model_tokens(const std::string& text, int64_t vocab);

// "cpu" or "cuda"; throws std::invalid_argument "unknown backend 'X' (cpu or cuda)".
backend::PlanBackend backend_named(const std::string& name);

}  // namespace earshot::app
