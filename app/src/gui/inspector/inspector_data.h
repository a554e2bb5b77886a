// The inspector's data from the engine: the `inspect` tables, the graph provider over the traced
// entries (expansion by call id, symbolic or bound labels), and the heat overlay's time shares
// from the CPU backend's profiled steps.
#pragma once

#include <QHash>
#include <QString>
#include <span>
#include <string>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/inspector_data.h"

namespace earshot::app {

// The Entries, Generics and Blocks of the Whisper program under `binding`, as `inspect` prints.
ui::InspectorData inspector_data(const model::WhisperBinding& binding);

// Draws entries of the program: traces each entry once (on first request) and builds the view the
// request asks for. Call ids are the traced graph's scope ids, so they stay the same whichever
// calls are open. Errors (an unknown entry) come back as GraphData::error. Call on one thread.
ui::GraphProvider graph_provider(const model::WhisperBinding& binding);

// For each call and loop of `entry`'s graph that the timed steps ran in, by call id, and for each
// drawn op node that a step maps to alone (the vocabulary `linear` of `step`), by node id: the
// share (0..1) of the time `entry` took. A live update's timings hold listen, prefill and steps
// together: only the steps of `entry` count (for `encode`, those of `listen` too, which runs the
// encoder and then the cross keys and values); steps of unknown entry count for any. Empty when
// no step counts. Throws what trace_whisper throws for an unknown entry.
QHash<QString, double> call_time_shares(const std::string& entry,
                                        std::span<const backend::StepTiming> timings);

}  // namespace earshot::app
