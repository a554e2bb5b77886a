// A live update's map as the cross-attention view's plain data (live_cross_attention_map.h).
#include "gui/live/live_cross_attention_map.h"

#include <algorithm>
#include <string>

#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "gui/files/segment_cross_attention.h"

namespace earshot::app {

ui::CrossAttentionMap live_cross_attention_map(
    const decoding::LiveCrossAttention& live,
    const std::shared_ptr<const std::vector<float>>& samples,
    const tokenizer::Tokenizer& tokenizer) {
    const decoding::AlignmentMap& aligned = live.map;
    ui::CrossAttentionMap map;
    map.heads = live.alignment_heads
                    ? QStringLiteral("the alignment heads (%1)").arg(live.heads.size())
                    : QStringLiteral("layer %1, head %2")
                          .arg(live.heads.front().layer)
                          .arg(live.heads.front().head);
    map.positions = static_cast<int>(aligned.positions);
    map.secondsPerPosition = 1.0 / decoding::kAudioPositionsPerSecond;
    map.startS = live.window_start_s;
    map.values = aligned.matrix;
    for (const std::string& token : live.row_tokens) {
        map.tokens.append(QString::fromStdString(token));
    }
    add_path_and_words(aligned, live.text_tokens, tokenizer, live.language, map);
    if (samples != nullptr) {
        // Shared, not copied: the map keeps the update's own window audio alive.
        const auto wanted = static_cast<size_t>(live.window_frames) * 160;  // 10 ms hops
        map.samples = {samples, 0, std::min(samples->size(), wanted)};
    }
    map.mels = static_cast<int>(live.mels);
    map.melFrames = static_cast<int>(live.window_frames);
    map.mel.resize(static_cast<size_t>(live.mels * live.window_frames));
    for (int64_t m = 0; m < live.mels; ++m) {
        std::copy_n(live.mel.begin() + m * live.frames, live.window_frames,
                    map.mel.begin() + m * live.window_frames);
    }
    return map;
}

}  // namespace earshot::app
