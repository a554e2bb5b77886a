// Binding the entries' own generics (B, A, S) for concrete graph labels.
#include "core/models/entry_binding.h"

#include "earshot/engine/model/whisper_model.h"

namespace earshot::app {

program::ConcreteBinding entry_binding(const model::WhisperBinding& binding) {
    program::ConcreteBinding values = binding.values;
    values.dims["B"] = values.dims.at("Batch");
    values.dims["A"] = model::audio_positions(values.dims);
    values.dims["S"] = kBoundPrefillTokens;
    return values;
}

}  // namespace earshot::app
