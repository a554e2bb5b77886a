// segment_cross_attention: the window, the tokens (the same sequence align_words prefills), the
// prefill keeping the heads' weights, alignment_map, and the plain data the view draws.
#include "gui/files/segment_cross_attention.h"

#include <QString>
#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

#include "earshot/audio/log_mel.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/alignment_map.h"
#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/decoding/word_tokens.h"

namespace earshot::app {

namespace {

constexpr int kSampleRateHz = 16000;  // what the file was transcribed from
constexpr int kHopSamples = 160;      // one log-mel frame: 10 ms (reference §1)
constexpr double kFramesPerSecond = 100.0;

ui::CrossAttentionMap withMessage(const QString& message) {
    ui::CrossAttentionMap map;
    map.message = message;
    return map;
}

}  // namespace

std::vector<int32_t> segment_prompt(const tokenizer::Tokenizer& tokenizer,
                                    const decoding::Segment& segment, const std::string& language) {
    const auto& sp = tokenizer.specials();
    std::vector<int32_t> tokens{sp.sot};
    if (tokenizer.multilingual()) {
        const int32_t language_token = tokenizer.language_token(language);
        if (language_token < 0) {
            throw std::invalid_argument("unknown language \"" + language + "\"");
        }
        tokens.push_back(language_token);
        tokens.push_back(sp.transcribe);
    }
    tokens.push_back(sp.notimestamps);
    for (int32_t token : segment.tokens) {
        if (token < sp.eot) tokens.push_back(token);
    }
    tokens.push_back(sp.eot);
    return tokens;
}

void add_path_and_words(const decoding::AlignmentMap& aligned, std::span<const int32_t> text_tokens,
                        const tokenizer::Tokenizer& tokenizer, const std::string& language,
                        ui::CrossAttentionMap& map) {
    for (size_t k = 0; k < aligned.path.rows.size(); ++k) {
        map.path.append(
            QPoint(static_cast<int>(aligned.path.cols[k]), static_cast<int>(aligned.path.rows[k])));
    }
    const decoding::DecodeTextFn decode = [&tokenizer](std::span<const int32_t> ids) {
        return tokenizer.decode_text(ids);
    };
    const std::vector<decoding::AlignedWord> words =
        decoding::split_word_tokens(text_tokens, decode, decoding::splits_by_character(language));
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
}

std::vector<float> waveform_peaks(std::span<const float> samples, size_t count) {
    std::vector<float> peaks;
    if (samples.empty() || count == 0) return peaks;
    count = std::min(count, samples.size());
    peaks.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const size_t from = samples.size() * i / count;
        const size_t to = std::max(from + 1, samples.size() * (i + 1) / count);
        float peak = 0.0F;
        for (size_t k = from; k < to; ++k) peak = std::max(peak, std::fabs(samples[k]));
        peaks.push_back(peak);
    }
    return peaks;
}

ui::CrossAttentionMap segment_cross_attention(LoadedModel& loaded, std::span<const float> samples,
                                              const decoding::Segment& segment,
                                              const std::string& language, int layer, int head) {
    decoding::DecoderModel& model = *loaded.model;
    const tokenizer::Tokenizer& tokenizer = loaded.tokenizer;
    if (!model.keeps_cross_attention()) {
        return withMessage(QStringLiteral("The %1 backend does not return cross-attention weights.")
                               .arg(QString::fromStdString(model.backend_name())));
    }
    const auto& sp = tokenizer.specials();
    std::vector<int32_t> text;
    for (int32_t token : segment.tokens) {
        if (token < sp.eot) text.push_back(token);
    }
    if (text.empty()) return withMessage(QStringLiteral("This segment has no text tokens."));

    std::vector<backend::AttentionHead> heads;
    QString headsName;
    const auto& dims = loaded.checkpoint.binding.values.dims;
    if (layer < 0) {
        heads = alignment_heads(loaded);
        headsName = QStringLiteral("the alignment heads (%1)").arg(heads.size());
    } else {
        if (layer >= dims.at("DecoderLayers") || head < 0 || head >= dims.at("Heads")) {
            return withMessage(
                QStringLiteral("The model has no head %1 in layer %2.").arg(head).arg(layer));
        }
        heads = {{layer, head}};
        headsName = QStringLiteral("layer %1, head %2").arg(layer).arg(head);
    }

    // What align_words prefills: the SOT sequence, the text, EOT.
    const std::vector<int32_t> tokens = segment_prompt(tokenizer, segment, language);
    const size_t sot_length = tokens.size() - text.size() - 1;
    if (static_cast<int64_t>(tokens.size()) > model.max_tokens()) {
        return withMessage(QStringLiteral("%1 tokens do not fit the decoder.").arg(tokens.size()));
    }

    // The window from the segment's start: its log-mel as one Whisper window.
    const int64_t frames = model.frames();
    const auto start_sample = std::min(
        samples.size(), static_cast<size_t>(std::max(0.0, segment.start_s) * kSampleRateHz));
    const size_t window_samples = static_cast<size_t>(frames) * kHopSamples;
    const std::span<const float> window =
        samples.subspan(start_sample, std::min(window_samples, samples.size() - start_sample));
    const audio::LogMel mel = audio::log_mel_window(window, static_cast<int>(model.mels()), frames);
    // The segment's frames (even: two per audio position), at least one position.
    const double duration_s = std::max(0.02, segment.end_s - segment.start_s);
    const int64_t num_frames = std::clamp<int64_t>(
        2 * static_cast<int64_t>(std::ceil(duration_s * kFramesPerSecond / 2.0)), 2, frames);

    model.listen(backend::HostTensor::f32({1, model.mels(), frames}, mel.values));
    backend::CrossAttentionRequest request{heads, {}};
    model.prefill_keeping_cross_attention(
        backend::HostTensor::i32({1, static_cast<int64_t>(tokens.size())}, tokens), request);
    const decoding::AlignmentMap aligned = decoding::alignment_map(
        request.weights, sot_length, static_cast<int64_t>(text.size()), num_frames);

    ui::CrossAttentionMap map;
    map.heads = headsName;
    map.positions = static_cast<int>(aligned.positions);
    map.secondsPerPosition = 1.0 / decoding::kAudioPositionsPerSecond;
    map.startS = static_cast<double>(start_sample) / kSampleRateHz;
    map.values = aligned.matrix;
    map.tokens.append(QStringLiteral("<|notimestamps|>"));
    for (int32_t token : text) {
        const int32_t one[] = {token};
        map.tokens.append(QString::fromStdString(tokenizer.decode_text(one)));
    }
    add_path_and_words(aligned, text, tokenizer, language, map);
    map.samples = ui::WindowAudio::of(std::vector<float>(
        window.begin(),
        window.begin() + static_cast<std::ptrdiff_t>(std::min(
                             window.size(), static_cast<size_t>(num_frames) * kHopSamples))));
    map.mels = mel.mels;
    map.melFrames = static_cast<int>(num_frames);
    map.mel.resize(static_cast<size_t>(mel.mels) * static_cast<size_t>(num_frames));
    for (int m = 0; m < mel.mels; ++m) {
        for (int64_t f = 0; f < num_frames; ++f) {
            map.mel[static_cast<size_t>(m * num_frames + f)] = mel.at(m, f);
        }
    }
    return map;
}

}  // namespace earshot::app
