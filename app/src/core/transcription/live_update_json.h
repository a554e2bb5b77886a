// One live update as a line of JSON (JSON Lines): what `earshot live --updates-json` writes for
// latency harnesses, soak runs and bug reports.
#pragma once

#include <string>

#include "earshot/core/live_controller.h"

namespace earshot::app {

// {"index":..,"wall_s":..,"window_start_s":..,"audio_end_s":..,"engine_ms":..,"gate":"decoded",
//  "committed_text":..,"committed_words":[{"text":..,"start_s":..,"end_s":..,"timing":..}],
//  "tentative_text":..,"tentative_words":[...],"word_timing":"aligned","forced_commit":..,
//  "final":..,"no_speech_prob":..,
//  "new_tokens":..,"coalesced_updates":..,"dropped_frames":..,"overrun_samples":..,
//  "level_dbfs":..,"queued_frames":..} without a newline.
// Word times are stream seconds; "timing" is "aligned" (cross-attention alignment) or
// "estimated" (the segment's span shared by length: a backend without cross-attention weights).
std::string live_update_json(const LiveUpdate& update);

}  // namespace earshot::app
