// Word-level timestamps by cross-attention alignment, as openai's word_timestamps computes them:
// the alignment heads' cross-attention over a window's text tokens, normalized per head, median
// filtered along time, averaged, and warped (DTW) onto the audio positions (0.02 s each).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/alignment_map.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/seek_loop.h"
#include "earshot/engine/decoding/time_warp.h"
#include "earshot/engine/decoding/transcript.h"
#include "earshot/engine/decoding/word_tokens.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

// openai's default: 50 audio positions per second (the median filter's width, 7, is in
// alignment_map.h).
inline constexpr double kAudioPositionsPerSecond = 50.0;

// The heads to align with when the checkpoint names none: every head of the last half of the
// decoder layers (layers decoder_layers / 2 .. decoder_layers - 1), as openai does.
std::vector<backend::AttentionHead> default_alignment_heads(int64_t decoder_layers, int64_t heads);

// The pure part of the alignment. weights [1, heads, S, Audio]: cross-attention probabilities of
// a prefill over sot_sequence (sot_length tokens, ending in <|notimestamps|>) + text_tokens +
// EOT. Only the first num_frames / 2 audio positions (the window's audio) are kept and each row
// is renormalized over them (the softmax over those positions alone); then per head and audio
// position the rows are standardized (mean 0, std 1 over the tokens), median filtered along time,
// averaged over heads, and warped on their negative. A word starts where the path first reaches
// its first token and ends where it reaches the next word's. `token_probabilities` (one per text
// token, or empty for 0) give each word's mean probability.
std::vector<AlignedWord> align_from_cross_attention(
    const backend::HostTensor& weights, size_t sot_length, std::span<const int32_t> text_tokens,
    std::span<const double> token_probabilities, int64_t num_frames,
    const DecodeTextFn& decode_text, bool by_character);

// The prefill word alignment runs: the window mel [1, Mels, Frames] listened to (the same window
// again costs no encoder run), then SOT (+ language, task) + <|notimestamps|> + text_tokens + EOT
// prefilled keeping `heads`' cross-attention. Returns the weights [1, heads, S, Audio] and sets
// `sot_length` (the tokens before the text). Throws what align_words throws.
backend::HostTensor alignment_prefill(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                                      const backend::HostTensor& window_mel,
                                      const std::string& language,
                                      std::span<const int32_t> text_tokens,
                                      std::span<const backend::AttentionHead> heads,
                                      size_t& sot_length);

// The model part: the window mel [1, Mels, Frames] listened to (the same window again costs no
// encoder run), one prefill of SOT (+ language, task) + <|notimestamps|> + text_tokens + EOT that
// keeps `heads`' cross-attention, then align_from_cross_attention. Empty for no text tokens.
// Throws std::logic_error when the model cannot return cross-attention weights.
std::vector<AlignedWord> align_words(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                                     const backend::HostTensor& window_mel,
                                     const std::string& language,
                                     std::span<const int32_t> text_tokens,
                                     std::span<const double> token_probabilities,
                                     int64_t num_frames,
                                     std::span<const backend::AttentionHead> heads);

// openai's add_word_timestamps for one window's segments, given the alignment of their text
// tokens (in segment order): long words next to sentence ends are clamped to twice the median
// word duration (at most 0.7 s), punctuation merged, and each segment takes the words whose
// tokens it holds, shifted by time_offset_s; its first and last word are reconciled with the
// segment's own times (a first word far longer than the others, one that starts well before
// the segment, or a last one that ends well after it). `last_speech_s` carries the end of the
// previous window's speech across calls.
void add_words_to_segments(std::span<Segment> segments, std::vector<AlignedWord> alignment,
                           double time_offset_s, int32_t eot, double& last_speech_s);

// Word times for long-form transcription, window by window: `source()` stands in for the mel
// source of the seek loop and remembers the window it cut last (its frames and seek), and
// add_words() gives that window's new segments their words (align_words over their text tokens,
// whose sampled log-probabilities give the words' probabilities, then add_words_to_segments).
class WindowWordAligner {
public:
    // `heads`: at least one (the checkpoint's alignment heads, or default_alignment_heads). The
    // model, tokenizer and mel outlive the aligner.
    WindowWordAligner(DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                      MelWindowSource& mel, std::string language,
                      std::vector<backend::AttentionHead> heads);

    MelWindowSource& source() { return recorder_; }
    // Adds words to `segments`, the segments the last window cut by source() produced.
    void add_words(std::span<Segment> segments);

private:
    class Recorder final : public MelWindowSource {
    public:
        explicit Recorder(MelWindowSource& inner) : inner_(inner) {}
        int64_t mels() const override { return inner_.mels(); }
        int64_t content_frames() const override { return inner_.content_frames(); }
        backend::HostTensor window(int64_t seek, int64_t frames) override;

        MelWindowSource& inner_;
        backend::HostTensor last_window;
        int64_t last_seek = 0;
    };

    DecoderModel& model_;
    const tokenizer::Tokenizer& tokenizer_;
    Recorder recorder_;
    std::string language_;
    std::vector<backend::AttentionHead> heads_;
    double last_speech_s_ = 0.0;
};

}  // namespace earshot::decoding
