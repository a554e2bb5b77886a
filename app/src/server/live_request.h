// LiveRequest: what a client asks of a live session in the WebSocket URL's query
// (/v1/realtime/transcription?sample_rate=16000&language=en&...), checked before the upgrade.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "earshot/core/live_controller.h"
#include "earshot/core/loaded_model.h"
#include "server/api_error.h"

namespace earshot::server {

struct LiveRequest {
    int sample_rate_hz = 16000;       // of the s16le mono PCM the client sends; others resampled
    std::string language = "auto";    // a code, a name or auto, as `earshot live --language`
    std::string task = "transcribe";  // or translate
    int step_ms = 500;                // `earshot live --step-ms`
    bool exact_steps = false;         // `earshot live --exact-steps`
    bool commands = true;             // spoken commands (the English table); 0: `--no-commands`
    bool guard = true;                // the invented-words guard; 0: `--no-guard`
    std::string model;                // empty or the served default's id
};

// The query of `target` as a LiveRequest; a 400 ApiError naming the parameter at fault.
std::variant<LiveRequest, ApiError> parse_live_request(std::string_view target);

// The live pipeline's options for `request` on `model`, with `earshot live`'s defaults for what the
// request does not name (prompt 128 tokens, pause 1000 ms, VAD margin 12 dB), the source pushed.
// Throws app::TranscriptionSetupError when the model cannot run the language or task.
app::LiveOptions live_options(const LiveRequest& request, const app::LoadedModel& model);

}  // namespace earshot::server
