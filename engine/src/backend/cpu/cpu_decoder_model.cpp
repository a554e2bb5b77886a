// The CPU backend as decoding's DecoderModel.
#include "../../decoding/whisper_decoder_model.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::decoding {

std::unique_ptr<DecoderModel> make_cpu_decoder_model(const model::WhisperCheckpoint& checkpoint) {
    return std::make_unique<WhisperDecoderModel<backend::CpuWhisper>>(
        backend::CpuWhisper(checkpoint), "CPU");
}

}  // namespace earshot::decoding
