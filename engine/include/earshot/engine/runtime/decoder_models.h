// Decoder models on a backend: a checkpoint bound to the CPU or CUDA backend as decoding's
// DecoderModel, and the backend the user chose. This sits above both backend/ and decoding/, so
// neither knows the other's implementations.
#pragma once

#include <memory>
#include <string>

#include "earshot/engine/backend/backend_choice.h"
#include "earshot/engine/decoding/decoder_model.h"

namespace earshot::model {
struct WhisperCheckpoint;
}

namespace earshot::runtime {

// The CPU backend as a DecoderModel.
std::unique_ptr<decoding::DecoderModel> make_cpu_decoder_model(
    const model::WhisperCheckpoint& checkpoint);

// The CUDA backend as a DecoderModel on `device`; throws backend::CudaError saying what is
// missing (module, driver, device, memory for `model_name`).
std::unique_ptr<decoding::DecoderModel> make_cuda_decoder_model(
    const model::WhisperCheckpoint& checkpoint, int device = 0,
    const std::string& model_name = "the model");

// A decoder model on the backend the user chose. `automatic` tries CUDA and falls back to the
// CPU, saying why in `fallback_reason` (one line; empty when nothing fell back). `cuda` throws
// backend::CudaError instead of falling back.
struct ChosenDecoderModel {
    std::unique_ptr<decoding::DecoderModel> model;
    std::string fallback_reason;
};
ChosenDecoderModel make_decoder_model(const model::WhisperCheckpoint& checkpoint,
                                      backend::BackendChoice choice,
                                      const std::string& model_name = "the model");

}  // namespace earshot::runtime
