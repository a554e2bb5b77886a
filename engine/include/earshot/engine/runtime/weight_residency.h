// Asking a decoder model's backend to keep fewer weights resident (backend/weight_residency.h)
// without widening DecoderModel: the CPU backend can, the others keep every weight.
#pragma once

#include "earshot/engine/backend/weight_residency.h"
#include "earshot/engine/decoding/decoder_model.h"

namespace earshot::runtime {

// True when `model` runs on the CPU backend, which now keeps `residency`; false (nothing changed)
// for any other backend.
bool set_weight_residency(decoding::DecoderModel& model, backend::WeightResidency residency);

}  // namespace earshot::runtime
