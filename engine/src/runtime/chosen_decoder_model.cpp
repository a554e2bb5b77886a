// Choosing the backend a decoder model runs on: CUDA when asked for or available, else the CPU.
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_driver_probe.h"
#include "earshot/engine/runtime/decoder_models.h"

namespace earshot::runtime {

ChosenDecoderModel make_decoder_model(const model::WhisperCheckpoint& checkpoint,
                                      backend::BackendChoice choice,
                                      const std::string& model_name) {
    ChosenDecoderModel chosen;
    if (choice == backend::BackendChoice::cpu) {
        chosen.model = make_cpu_decoder_model(checkpoint);
        return chosen;
    }
    // `auto` on a machine without the driver: the CPU, without loading the CUDA module.
    if (choice == backend::BackendChoice::automatic) {
        if (const auto missing = backend::missing_cuda_driver()) {
            chosen.fallback_reason = backend::cuda_fallback_reason(*missing);
            chosen.model = make_cpu_decoder_model(checkpoint);
            return chosen;
        }
    }
    try {
        chosen.model = make_cuda_decoder_model(checkpoint, 0, model_name);
        return chosen;
    } catch (const backend::CudaError& error) {
        if (choice == backend::BackendChoice::cuda) throw;
        chosen.fallback_reason = backend::cuda_fallback_reason(error);
    }
    chosen.model = make_cpu_decoder_model(checkpoint);
    return chosen;
}

}  // namespace earshot::runtime
