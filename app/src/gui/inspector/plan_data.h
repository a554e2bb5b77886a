// The inspector's plan table from the engine: an entry's plan listing, the one `earshot debug
// plan` prints, as ui::PlanData, and the backend whose plan the loaded model runs.
#pragma once

#include <QString>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/ui/inspector/plan_data.h"

namespace earshot::app {

// `listing` as the table shows it: the header line without its "# ", one row per kernel with the
// command line's numbers ("6.33 MiB", "6.64 MFLOP", "-") and plan_total_line as the total.
ui::PlanData plan_data(const backend::PlanListing& listing);

// Lists the plan a request asks for under `binding` (a copy is kept), as `earshot debug plan
// --entry E --backend B --rows N` does (prefill: 4 tokens). An entry that is not listed (decode)
// or a listing that cannot be made comes back as PlanData::note.
ui::PlanProvider plan_provider(const model::WhisperBinding& binding);

// "cuda" when `loaded` runs on the CUDA backend, else "cpu".
QString plan_backend(const LoadedModel& loaded);

}  // namespace earshot::app
