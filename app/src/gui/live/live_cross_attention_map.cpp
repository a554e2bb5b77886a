// A live update's map as the cross-attention view's plain data (live_cross_attention_map.h).
#include "gui/live/live_cross_attention_map.h"

#include <algorithm>
#include <string>

#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/decoding/word_tokens.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

ui::CrossAttentionMap live_cross_attention_map(const decoding::LiveCrossAttention& live,
                                               const std::vector<float>* samples,
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
    for (size_t k = 0; k < aligned.path.rows.size(); ++k) {
        map.path.append(
            QPoint(static_cast<int>(aligned.path.cols[k]), static_cast<int>(aligned.path.rows[k])));
    }
    // Each word starts where the path reaches its first token and ends where it reaches the next
    // word's; the last ends with the audio.
    const decoding::DecodeTextFn decode = [&tokenizer](std::span<const int32_t> ids) {
        return tokenizer.decode_text(ids);
    };
    const std::vector<decoding::AlignedWord> words = decoding::split_word_tokens(
        live.text_tokens, decode, decoding::splits_by_character(live.language));
    size_t boundary = 0;
    for (const decoding::AlignedWord& word : words) {
        const size_t end = boundary + word.tokens.size();
        const int64_t from = aligned.jump_positions.at(boundary);
        const int64_t to =
            end < aligned.jump_positions.size() ? aligned.jump_positions[end] : aligned.positions;
        const QString text = QString::fromStdString(word.text).trimmed();
        if (!text.isEmpty()) {
            map.words.append({text, map.startS + static_cast<double>(from) * map.secondsPerPosition,
                              map.startS + static_cast<double>(to) * map.secondsPerPosition, -1.0});
        }
        boundary = end;
    }
    if (samples != nullptr) {
        const auto wanted = static_cast<size_t>(live.window_frames) * 160;  // 10 ms hops
        map.samples.assign(
            samples->begin(),
            samples->begin() + static_cast<std::ptrdiff_t>(std::min(samples->size(), wanted)));
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
