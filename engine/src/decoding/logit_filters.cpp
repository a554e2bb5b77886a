// Whisper's per-step logit filters: SuppressBlank, SuppressTokens, ApplyTimestampRules (§5.2).
#include "earshot/engine/decoding/logit_filters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace earshot::decoding {

namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

// -inf on ids [begin, end), clamped to the row.
void forbid_range(std::span<float> logits, int64_t begin, int64_t end) {
    const auto size = static_cast<int64_t>(logits.size());
    begin = std::clamp<int64_t>(begin, 0, size);
    end = std::clamp<int64_t>(end, 0, size);
    for (int64_t i = begin; i < end; ++i) logits[static_cast<size_t>(i)] = minus_inf;
}

void forbid(std::span<float> logits, int32_t id) {
    if (id >= 0 && static_cast<size_t>(id) < logits.size())
        logits[static_cast<size_t>(id)] = minus_inf;
}

// log(sum(exp(v))) over [begin, end) in double; -inf when every value is -inf.
double log_sum_exp(std::span<const float> logits, size_t begin, size_t end) {
    float peak = minus_inf;
    for (size_t i = begin; i < end; ++i) peak = std::max(peak, logits[i]);
    if (peak == minus_inf) return -std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (size_t i = begin; i < end; ++i) sum += std::exp(double(logits[i]) - double(peak));
    return double(peak) + std::log(sum);
}

}  // namespace

std::optional<int32_t> max_initial_timestamp_index(double seconds) {
    if (!(seconds > 0.0)) return std::nullopt;
    // nearbyint under the default rounding mode rounds half to even, as Python's round().
    return static_cast<int32_t>(std::nearbyint(seconds / timestamp_step_s));
}

std::vector<int32_t> suppress_token_set(std::span<const int32_t> requested,
                                        std::span<const int32_t> non_speech,
                                        std::span<const int32_t> always) {
    std::vector<int32_t> ids;
    const bool expand = std::find(requested.begin(), requested.end(), -1) != requested.end();
    for (int32_t id : requested) {
        if (id >= 0) {
            ids.push_back(id);
        } else if (id != -1) {
            throw std::invalid_argument("suppress_tokens: " + std::to_string(id) +
                                        " is neither a token id nor -1 (the non-speech set)");
        }
    }
    if (expand) ids.insert(ids.end(), non_speech.begin(), non_speech.end());
    ids.insert(ids.end(), always.begin(), always.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

void suppress_blank(std::span<float> logits, std::span<const int32_t> sampled,
                    const FilterTokens& ids) {
    if (!sampled.empty()) return;
    forbid(logits, ids.blank);
    forbid(logits, ids.eot);
}

void suppress_tokens(std::span<float> logits, std::span<const int32_t> ids) {
    for (int32_t id : ids) forbid(logits, id);
}

void apply_timestamp_rules(std::span<float> logits, std::span<const int32_t> sampled,
                           const FilterTokens& ids,
                           std::optional<int32_t> max_initial_timestamp_index) {
    const int32_t begin = ids.timestamp_begin;
    const auto vocab = static_cast<int64_t>(logits.size());
    auto is_timestamp = [begin](int32_t token) { return token >= begin; };

    // (a) <|notimestamps|> is the caller's switch, never a sampled token.
    forbid(logits, ids.no_timestamps);

    // (b) Pairs: after a pair (or a lone first timestamp) text or EOT must follow; after text
    // followed by one timestamp, another timestamp or EOT must follow.
    const size_t n = sampled.size();
    const bool last_was_timestamp = n >= 1 && is_timestamp(sampled[n - 1]);
    const bool penultimate_was_timestamp = n < 2 || is_timestamp(sampled[n - 2]);
    if (last_was_timestamp) {
        if (penultimate_was_timestamp) {
            forbid_range(logits, begin, vocab);
        } else {
            forbid_range(logits, 0, ids.eot);
        }
    }

    // (c) Monotonic: no timestamp below the last one; after a closing timestamp (text then
    // timestamp) the next segment may start at that same time, otherwise it must be later.
    const auto last_ts = std::find_if(sampled.rbegin(), sampled.rend(), is_timestamp);
    if (last_ts != sampled.rend()) {
        const int64_t limit = (last_was_timestamp && !penultimate_was_timestamp)
                                  ? int64_t{*last_ts}
                                  : int64_t{*last_ts} + 1;
        forbid_range(logits, begin, limit);
    }

    // (d) The first sampled token is a timestamp, at most max_initial_timestamp in.
    if (n == 0) {
        forbid_range(logits, 0, begin);
        if (max_initial_timestamp_index) {
            forbid_range(logits, int64_t{begin} + *max_initial_timestamp_index + 1, vocab);
        }
    }

    // (e) When the timestamps together are likelier than any single text token, force one.
    // Compared as log-probabilities of the masked row; the shared log-normaliser cancels.
    const auto text_end = static_cast<size_t>(std::clamp<int64_t>(begin, 0, vocab));
    const double timestamp_mass = log_sum_exp(logits, text_end, logits.size());
    float max_text = minus_inf;
    for (size_t i = 0; i < text_end; ++i) max_text = std::max(max_text, logits[i]);
    if (timestamp_mass > double(max_text)) forbid_range(logits, 0, begin);
}

void apply_logit_filters(std::span<float> logits, std::span<const int32_t> sampled,
                         const LogitFilterSettings& settings) {
    if (settings.boost != 0.0F) {
        for (const int32_t id : settings.boosted) {
            const auto at = static_cast<size_t>(id);
            if (id >= 0 && at < logits.size()) logits[at] += settings.boost;
        }
    }
    if (settings.suppress_blank) suppress_blank(logits, sampled, settings.ids);
    suppress_tokens(logits, settings.suppress);
    if (settings.timestamps) {
        apply_timestamp_rules(logits, sampled, settings.ids, settings.max_initial_timestamp_index);
    }
}

}  // namespace earshot::decoding
