// The run-time dims of the entries' own generics for concrete graph labels (`earshot graph
// --bind` and the inspector's concrete toggle): one sequence, the full audio, a short prefill.
#pragma once

#include <cstdint>

#include "earshot/engine/model/whisper_binding.h"

namespace earshot::app {

// The length of a prefill in a bound view: <|startoftranscript|>, a language and a task.
inline constexpr int64_t kBoundPrefillTokens = 3;

// The checkpoint's binding plus B = Batch, A = the encoder's output length, S =
// kBoundPrefillTokens.
program::ConcreteBinding entry_binding(const model::WhisperBinding& binding);

}  // namespace earshot::app
