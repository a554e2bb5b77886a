// LoadedModel: a checkpoint, its tokenizer and the CPU backend's decoder model, loaded together
// for the commands and the GUI that transcribe.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "earshot/engine/checkpoint/generation_config.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

struct LoadedModel {
    model::WhisperCheckpoint checkpoint;  // the decoder model may refer to its weights
    tokenizer::Tokenizer tokenizer;
    std::unique_ptr<decoding::DecoderModel> model;
    checkpoint::GenerationConfig generation;  // generation_config.json, when the checkpoint has one
};

// Loads `model_path` (HF directory, .safetensors or ggml .bin) and the vocabulary from
// `vocab_path` (empty: the model's own). Throws what the loaders throw (CheckpointError,
// TokenizerError, ...), each message naming the file and the reason.
std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& model_path,
                                        const std::filesystem::path& vocab_path = {});

// Writes the decoding defaults that the checkpoint itself carries into `decoding`: its
// generation_config.json suppress_tokens list, when it has one (the micro model lists every id it
// never learned, so that neither sampling nor the log-probability thresholds see them).
void apply_model_defaults(const LoadedModel& loaded, decoding::DecodingOptions& decoding);

}  // namespace earshot::app
