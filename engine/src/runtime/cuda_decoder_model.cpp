// The CUDA backend as decoding's DecoderModel (the same adapter as the CPU's).
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "runtime/whisper_decoder_model.h"

namespace earshot::runtime {

std::unique_ptr<decoding::DecoderModel> make_cuda_decoder_model(
    const model::WhisperCheckpoint& checkpoint, int device, const std::string& model_name) {
    backend::CudaWhisper whisper(checkpoint, 1, device, model_name);
    std::string name = "CUDA (" + whisper.device().name + ")";
    return std::make_unique<WhisperDecoderModel<backend::CudaWhisper>>(std::move(whisper),
                                                                       std::move(name));
}

}  // namespace earshot::runtime
