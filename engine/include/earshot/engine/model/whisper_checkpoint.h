// Loading a Whisper checkpoint for running: the binding of the program's generics, the weights by
// parameter path, and the check of every weight against the parameter's declared type.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/engine/program/types.h"

namespace earshot::model {

// One parameter of the program under a binding.
struct ParamSpec {
    std::string path;            // "encoder_layers.3.self_attn.q_proj.weight"
    program::Type type;          // symbolic in the root's generics: Tensor[D, D; T]
    std::vector<int64_t> shape;  // bound: [384, 384]
    bool optional = false;       // `?` types (Linear biases) may be absent
};

// Every param of the program, in declaration order with arrays expanded: encoder_layers.0 ..
// encoder_layers.{EncoderLayers - 1}, then the next member.
std::vector<ParamSpec> whisper_params(const WhisperBinding& binding);

// A checkpoint whose weights do not fit the program. what() is one line naming the parameter path,
// its symbolic type, the expected and found shape, and the tensor and file it came from.
class LoadError : public std::runtime_error {
public:
    LoadError(std::string param_path, const std::string& message)
        : std::runtime_error(message), param_path_(std::move(param_path)) {}
    // The program path the error is about ("" for a tensor that maps to no parameter).
    const std::string& param_path() const noexcept { return param_path_; }

private:
    std::string param_path_;
};

struct WhisperCheckpoint {
    WhisperBinding binding;
    checkpoint::WeightSet weights;
};

// read_whisper_config + bind_whisper + read_weights + check_weights. Throws CheckpointError
// (format), BindingError (constraints) or LoadError (weights).
WhisperCheckpoint load_whisper_checkpoint(const std::filesystem::path& path);
// The same for a configuration already read and bound (a caller that checks what else the model
// needs, its tokenizer, before reading gigabytes of weights): read_weights + check_weights.
WhisperCheckpoint load_whisper_checkpoint(WhisperBinding binding);

// Throws LoadError on the first problem, in this order: per parameter in program order a missing
// non-optional tensor or a wrong shape; then a tensor that is no parameter; then a non-finite value
// (every value is scanned; the message gives the first bad flat index). Dtypes may mix.
void check_weights(const checkpoint::WeightSet& weights, const WhisperBinding& binding);

}  // namespace earshot::model
