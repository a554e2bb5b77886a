// tap_values: the open taps computed on one input, as the inspector's tabs show them: the
// model's TapSet attached while the window is listened to, its text prefilled and one step
// taken, then each tapped value as plain data (symbolic type from the entry's tappable edges).
#pragma once

#include <QList>
#include <QString>
#include <span>
#include <string>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/ui/inspector/tap_data.h"

namespace earshot::app {

// `tapped` as the panel shows it; `edge` (may be null) gives its symbolic type. A value no run
// filled says why instead.
ui::TapValue to_tap_value(const backend::TappedValue& tapped, const backend::TappableEdge* edge,
                          const QString& source);

// Runs listen(window_mel [1, Mels, Frames]), then prefill(prompt) when `names` has decoder
// values and one step (EOT at the next position) when one is the step's alone, with `names`
// tapped; returns one value per name, in
// order. `prompt`: the SOT sequence and text the decoder is prefilled with (at least one token).
// A model without taps, or a name no entry has, says so in the value's error. Throws what the
// model throws.
QList<ui::TapValue> run_taps(LoadedModel& model, const std::vector<std::string>& names,
                             const backend::HostTensor& window_mel, std::span<const int32_t> prompt,
                             const QString& source);

}  // namespace earshot::app
