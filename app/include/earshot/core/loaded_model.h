// LoadedModel: a checkpoint, its tokenizer and a backend's decoder model (the one `--backend` or
// the settings chose), loaded together for the commands and the GUI that transcribe.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "earshot/engine/backend/backend_choice.h"
#include "earshot/engine/checkpoint/generation_config.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

struct LoadedModel {
    model::WhisperCheckpoint checkpoint;  // the decoder model may refer to its weights
    tokenizer::Tokenizer tokenizer;
    std::unique_ptr<decoding::DecoderModel> model;
    checkpoint::GenerationConfig generation;  // generation_config.json, when the checkpoint has one
    // Why `auto` runs on the CPU ("CUDA is not available (no driver: ...); running on the CPU"),
    // for the caller to show once; empty when nothing fell back.
    std::string backend_fallback;
};

// Loads `model_path` (HF directory, .safetensors or ggml .bin) and the vocabulary from
// `vocab_path` (empty: the model's own), and runs it on `backend`: `automatic` takes CUDA when a
// device is present and otherwise the CPU (saying why in backend_fallback). Throws what the
// loaders throw (CheckpointError, TokenizerError, ...), each message naming the file and the
// reason; under BackendChoice::cuda, backend::CudaError when CUDA cannot run the model.
std::unique_ptr<LoadedModel> load_model(
    const std::filesystem::path& model_path, const std::filesystem::path& vocab_path = {},
    backend::BackendChoice backend = backend::BackendChoice::automatic);

}  // namespace earshot::app
