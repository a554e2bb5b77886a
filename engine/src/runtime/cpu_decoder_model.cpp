// The CPU backend as decoding's DecoderModel. A checkpoint whose decoder matrices are f16 or
// quantized blocks decodes with f16 caches (half the caches' memory; the values were computed from
// weights of f16 precision or less anyway).
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/runtime/weight_residency.h"
#include "runtime/whisper_decoder_model.h"

namespace earshot::runtime {

namespace {

// f16 when the decoder's first key projection (what the caches hold) is stored as f16 or blocks.
backend::CacheStorage cache_storage_for(const model::WhisperCheckpoint& checkpoint) {
    const checkpoint::Weight* keys =
        checkpoint.weights.find("decoder_layers.0.self_attn.k_proj.weight");
    return keys != nullptr && (keys->dtype == checkpoint::WeightDType::f16 ||
                               keys->dtype == checkpoint::WeightDType::ggml_blocks)
               ? backend::CacheStorage::f16
               : backend::CacheStorage::f32;
}

}  // namespace

std::unique_ptr<decoding::DecoderModel> make_cpu_decoder_model(
    const model::WhisperCheckpoint& checkpoint) {
    return std::make_unique<WhisperDecoderModel<backend::CpuWhisper>>(
        backend::CpuWhisper(checkpoint, 1, cache_storage_for(checkpoint)), "CPU");
}

bool set_weight_residency(decoding::DecoderModel& model, backend::WeightResidency residency) {
    auto* cpu = dynamic_cast<WhisperDecoderModel<backend::CpuWhisper>*>(&model);
    if (cpu == nullptr) return false;
    cpu->backend().set_weight_residency(residency);
    return true;
}

}  // namespace earshot::runtime
