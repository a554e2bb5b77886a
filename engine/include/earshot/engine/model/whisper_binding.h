// Binding the Whisper program's generics from a checkpoint's hyper-parameters, with every
// block constraint checked (D % Heads == 0, Heads > 0, Frames > 0, MaxTokens > 0, ...).
#pragma once

#include <stdexcept>

#include "earshot/engine/checkpoint/whisper_config.h"
#include "earshot/engine/program/inspect.h"
#include "earshot/engine/program/types.h"

namespace earshot::model {

// A checkpoint the program cannot run: the message names the constraint and the values.
class BindingError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct WhisperBinding {
    checkpoint::WhisperConfig config;
    // Mels, Frames, D, Heads, Inner, EncoderLayers, DecoderLayers, Vocab, MaxTokens, T; Batch = 1.
    program::ConcreteBinding values;
    // What the checkpoint binds, in the root's declaration order, for `inspect`.
    program::GenericValues generics;
};

// Frames = 2 * max_source_positions (the encoder's stride-2 conv halves it). Throws BindingError
// when encoder and decoder disagree on a size the program shares, or a constraint fails.
WhisperBinding bind_whisper(const checkpoint::WhisperConfig& config);

// Checks every constraint of `root` and of the blocks under it for the given root values.
void check_constraints(const program::BlockDecl& root, const program::DimValues& values);

}  // namespace earshot::model
