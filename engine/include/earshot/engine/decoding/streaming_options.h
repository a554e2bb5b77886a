// How live dictation runs: StreamingOptions (decoding, update pacing, commit rules, word times),
// the window normalizer it is given, and the pacing of updates by engine time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/decoding/live_cross_attention.h"

namespace earshot::decoding {

// Whisper's normalization of one window of raw log-mel frames ([N][Mels], N <= frames) into a
// padded window [Mels, frames] (the audio module's normalize_window; passed in because the
// engine does not depend on the audio module).
using WindowNormalizer =
    std::function<void(std::span<const float> raw_frames /* [N][Mels] */, int64_t frames,
                       std::span<float> out /* [Mels, Frames] */)>;

// How often updates run.
enum class UpdatePacing {
    fixed,        // every update_frames of new audio
    engine_time,  // as often as the measured engine time allows: see paced_update_frames()
};

struct StreamingOptions {
    // language ("" = detect once, on the first window with speech), task, suppression. Streaming
    // decodes greedily with timestamps whatever beam_size, temperatures and timestamps say.
    DecodingOptions decoding;
    UpdatePacing pacing = UpdatePacing::engine_time;
    int64_t update_frames = 50;      // fixed: an update every 0.5 s of new audio (100 frames per
                                     //   second); engine_time: the longest interval
    int64_t min_update_frames = 10;  // engine_time: the shortest interval (0.1 s)
    double engine_share = 0.3;       // engine_time: the part of real time updates may take
    int prompt_max_tokens = 128;     // committed text kept as the prompt of later windows
    double pause_commit_s = 1.0;  // this much non-speech after speech commits the tentative words
    // ... and this much when the model closed the hypothesis's last segment with an end timestamp
    // at most 0.2 s after the VAD's last speech frame (or said nothing new): the VAD and the
    // model agree that the speech stopped. The VAD's hangover comes on top of both.
    double quick_pause_s = 0.1;
    // A word is agreed on only once the window holds this much audio after its end: a word at
    // the end of the audio is the model's guess from part of what follows (the micro model
    // closes a sentence after its first word, "see" of "see you next week", and two updates
    // 0.1 s apart guess alike). Pauses, a full window and the end commit regardless.
    double settle_s = 0.3;
    double new_tokens_per_s = 12.0;  // a window may add at most min_new_tokens + this * its seconds
    int min_new_tokens = 16;  //   (a hallucination loop cannot run to 224 tokens each update)
    bool use_vad = true;      // frames' speech flags gate decoding; off: every frame counts
    // Word times: these decoder heads' cross-attention over the update's text, warped onto the
    // window's audio (word_alignment.h: one more prefill per update that has words, no encoder
    // run). Empty, or a model that returns no cross-attention weights: estimates (WordTiming).
    std::vector<backend::AttentionHead> alignment_heads;
    // The live cross-attention map (live_cross_attention.h): while it says keep, each update that
    // aligns words keeps the map of its alignment prefill in StreamUpdate::cross_attention.
    std::shared_ptr<LiveCrossAttentionChoice> cross_attention;
};

// engine_time pacing: the interval (frames of new audio) after updates that took engine_ms
// (their running mean) so that updates take about engine_share of real time, clamped to
// [min_update_frames, update_frames]. fixed: update_frames.
int64_t paced_update_frames(double engine_ms, const StreamingOptions& options);

}  // namespace earshot::decoding
