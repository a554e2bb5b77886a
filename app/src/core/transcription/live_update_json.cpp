// Live updates as JSON Lines.
#include "core/transcription/live_update_json.h"

#include <nlohmann/json.hpp>

namespace earshot::app {

namespace {

nlohmann::ordered_json words_json(const std::vector<decoding::StreamWord>& words) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& w : words) {
        list.push_back({{"text", w.text},
                        {"start_s", w.start_s},
                        {"end_s", w.end_s},
                        {"timing", std::string(decoding::to_string(w.timing))}});
    }
    return list;
}

}  // namespace

std::string live_update_json(const LiveUpdate& live) {
    const decoding::StreamUpdate& u = live.update;
    nlohmann::ordered_json j;
    j["index"] = u.index;
    j["wall_s"] = live.wall_s;
    j["window_start_s"] = u.window_start_s;
    j["audio_end_s"] = u.audio_end_s;
    j["engine_ms"] = u.engine_ms;
    j["gate"] = std::string(decoding::to_string(u.gate));
    j["committed_text"] = u.committed_text;
    j["committed_words"] = words_json(u.committed_words);
    j["tentative_text"] = u.tentative_text;
    j["tentative_words"] = words_json(u.tentative_words);
    j["word_timing"] = std::string(decoding::to_string(u.word_timing));
    j["forced_commit"] = u.forced_commit;
    j["final"] = u.final;
    j["no_speech_prob"] = u.no_speech_prob;
    j["new_tokens"] = u.new_tokens;
    j["coalesced_updates"] = live.coalesced_updates;
    j["dropped_frames"] = live.dropped_frames;
    j["overrun_samples"] = live.overrun_samples;
    j["level_dbfs"] = live.level_dbfs;
    j["queued_frames"] = live.queued_frames;
    // Spoken commands: committed_text follows erasing erased_chars of the earlier text.
    j["erased_chars"] = live.erased_chars;
    j["commands_applied"] = live.commands_applied;
    j["held_words"] = live.held_words;
    // The invented-words guard: words not committed so far (loops, known phrases over silence).
    j["held_back_words"] = live.held_back_words;
    // Invalid UTF-8 from a partial token is replaced, never thrown on.
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace earshot::app
