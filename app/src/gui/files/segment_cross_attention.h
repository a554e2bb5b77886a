// segment_cross_attention: the cross-attention map of one transcribed segment, computed the way
// word times are (word_alignment.h): the 30 s window from the segment's start listened to, one
// prefill of the SOT sequence + <|notimestamps|> + the segment's text tokens + EOT keeping the
// chosen heads' cross-attention, turned into the map, warp path and word spans over the segment.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/decoding/alignment_map.h"
#include "earshot/engine/decoding/transcript.h"
#include "earshot/ui/files/cross_attention_data.h"

namespace earshot::app {

// `samples`: the whole file, 16 kHz mono. `layer` -1: the model's alignment heads
// (alignment_heads()); else that one decoder head. A segment without text tokens, a head the
// model lacks, or a backend without cross-attention weights gives a map whose message says why.
// Throws what the model throws.
ui::CrossAttentionMap segment_cross_attention(LoadedModel& model, std::span<const float> samples,
                                              const decoding::Segment& segment,
                                              const std::string& language, int layer, int head);

// The SOT sequence (+ language and task when multilingual), <|notimestamps|>, the segment's text
// tokens and EOT: what word alignment prefills. Throws std::invalid_argument for an unknown
// language of a multilingual model.
std::vector<int32_t> segment_prompt(const tokenizer::Tokenizer& tokenizer,
                                    const decoding::Segment& segment, const std::string& language);

// `aligned`'s warp path and the word spans of `text_tokens` along it into `map` (whose startS and
// secondsPerPosition are set): each word starts where the path reaches its first token and ends
// where it reaches the next word's, the last with the audio. For a file's segment and a live
// hypothesis alike.
void add_path_and_words(const decoding::AlignmentMap& aligned, std::span<const int32_t> text_tokens,
                        const tokenizer::Tokenizer& tokenizer, const std::string& language,
                        ui::CrossAttentionMap& map);

// The largest |sample| of each of `count` equal spans of `samples` (fewer for a short file).
std::vector<float> waveform_peaks(std::span<const float> samples, size_t count);

}  // namespace earshot::app
