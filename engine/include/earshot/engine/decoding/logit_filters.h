// Whisper's per-step logit filters (reference §5.2): SuppressBlank, SuppressTokens and
// ApplyTimestampRules (a-e), applied in that order to one row's last-position logits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace earshot::decoding {

// The token ids the filters need; the window code takes them from the tokenizer.
struct FilterTokens {
    int32_t blank = 220;  // " " (one token in both vocabularies)
    int32_t eot = 0;
    int32_t no_timestamps = 0;
    int32_t timestamp_begin = 0;  // <|0.00|>; every id at or above it is a timestamp
};

struct LogitFilterSettings {
    FilterTokens ids;
    bool suppress_blank = true;
    std::vector<int32_t> suppress;  // sorted, unique (suppress_token_set)
    bool timestamps = true;         // apply the timestamp rules
    // Last allowed first timestamp, as an index above timestamp_begin (50 = 1.00 s); none: any.
    std::optional<int32_t> max_initial_timestamp_index = 50;
    // A custom vocabulary's bias: `boost` added to each of `boosted` before the filters run (a
    // filtered token stays filtered).
    std::vector<int32_t> boosted;
    float boost = 0.0F;
};

// One timestamp token is 0.02 s (30 s / 1500 encoder positions, reference §4.2).
inline constexpr double timestamp_step_s = 0.02;
// round(seconds / 0.02) as Python rounds (half to even); nullopt when seconds <= 0, as openai
// treats max_initial_timestamp = 0 as "no limit".
std::optional<int32_t> max_initial_timestamp_index(double seconds);

// SuppressTokens' set (§5.2): the requested ids, -1 replaced by `non_speech`, plus `always`
// (transcribe, translate, SOT, startofprev, startoflm, nospeech); sorted and unique.
std::vector<int32_t> suppress_token_set(std::span<const int32_t> requested,
                                        std::span<const int32_t> non_speech,
                                        std::span<const int32_t> always);

// Each filter writes -inf into `logits` [Vocab]; `sampled` is the row's tokens after the initial
// ones (sample_begin on), so an empty `sampled` means the first sampled step.
void suppress_blank(std::span<float> logits, std::span<const int32_t> sampled,
                    const FilterTokens& ids);
void suppress_tokens(std::span<float> logits, std::span<const int32_t> ids);
void apply_timestamp_rules(std::span<float> logits, std::span<const int32_t> sampled,
                           const FilterTokens& ids,
                           std::optional<int32_t> max_initial_timestamp_index);

// The vocabulary bias, then the three in openai's order, as the settings switch them on.
void apply_logit_filters(std::span<float> logits, std::span<const int32_t> sampled,
                         const LogitFilterSettings& settings);

}  // namespace earshot::decoding
