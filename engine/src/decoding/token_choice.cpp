// Token choice per row: on the host from logits, and the filters as data for a backend that
// chooses where the logits are (token_choice.h).
#include "earshot/engine/decoding/token_choice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "earshot/engine/decoding/token_selection.h"

namespace earshot::decoding {

namespace {

constexpr int64_t kVocabEnd = std::numeric_limits<int32_t>::max();

}  // namespace

TokenChoice choose_on_host(std::span<const float> logits, std::span<const int32_t> sampled,
                           const LogitFilterSettings& filters, int choices) {
    if (choices < 1)
        throw std::invalid_argument("choose_on_host: choices " + std::to_string(choices));
    std::vector<float> row(logits.begin(), logits.end());
    apply_logit_filters(row, sampled, filters);
    const std::vector<double> logprobs = log_softmax(row);
    TokenChoice choice;
    if (choices == 1) {
        const int32_t token = argmax(row);
        choice.tokens = {token};
        choice.logprobs = {logprobs[static_cast<size_t>(token)]};
        return choice;
    }
    return best_of(logprobs, choices);
}

double rank_value(double logprob) {
    return std::isnan(logprob) ? -std::numeric_limits<double>::infinity() : logprob;
}

TokenChoice best_of(std::span<const double> logprobs, int choices) {
    const auto offer = std::min(static_cast<size_t>(std::max(choices, 0)), logprobs.size());
    std::vector<int32_t> ids(logprobs.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(offer), ids.end(),
                      [&](int32_t a, int32_t b) {
                          const double va = rank_value(logprobs[static_cast<size_t>(a)]);
                          const double vb = rank_value(logprobs[static_cast<size_t>(b)]);
                          return va > vb || (va == vb && a < b);
                      });
    TokenChoice choice;
    for (size_t k = 0; k < offer; ++k) {
        choice.tokens.push_back(ids[k]);
        choice.logprobs.push_back(logprobs[static_cast<size_t>(ids[k])]);
    }
    return choice;
}

std::vector<TokenChoice> choose_on_host(const backend::HostTensor& logits, const ChoiceSpec& spec) {
    const int64_t rows = logits.dim(0);
    const int64_t vocab = logits.dim(1);
    const auto values = logits.f32_values();
    std::vector<TokenChoice> out;
    for (size_t r = 0; r < spec.sampled.size(); ++r) {
        const int64_t at = rows == 1 ? 0 : static_cast<int64_t>(r);
        if (at >= rows) {
            throw std::invalid_argument("choose_on_host: " + std::to_string(spec.sampled.size()) +
                                        " rows asked of logits " + logits.shape_str());
        }
        out.push_back(choose_on_host(
            values.subspan(static_cast<size_t>(at * vocab), static_cast<size_t>(vocab)),
            spec.sampled[r], *spec.filters, spec.choices));
    }
    return out;
}

backend::RowRules row_rules(std::span<const int32_t> sampled, const LogitFilterSettings& filters) {
    backend::RowRules rules;
    auto forbid = [&rules](int64_t begin, int64_t end) {
        begin = std::clamp<int64_t>(begin, 0, kVocabEnd);
        end = std::clamp<int64_t>(end, 0, kVocabEnd);
        if (begin >= end) return;
        if (rules.forbidden_count == backend::kMaxForbiddenRanges) {
            throw std::logic_error("row_rules: more forbidden ranges than kMaxForbiddenRanges");
        }
        rules.forbidden[rules.forbidden_count++] = {static_cast<int32_t>(begin),
                                                    static_cast<int32_t>(end)};
    };
    const FilterTokens& ids = filters.ids;
    if (filters.suppress_blank && sampled.empty()) {  // suppress_blank
        forbid(ids.blank, int64_t{ids.blank} + 1);
        forbid(ids.eot, int64_t{ids.eot} + 1);
    }
    if (!filters.timestamps) return rules;
    // apply_timestamp_rules (a)-(d), the same conditions.
    const int32_t begin = ids.timestamp_begin;
    auto is_timestamp = [begin](int32_t token) { return token >= begin; };
    forbid(ids.no_timestamps, int64_t{ids.no_timestamps} + 1);
    const size_t n = sampled.size();
    const bool last_was_timestamp = n >= 1 && is_timestamp(sampled[n - 1]);
    const bool penultimate_was_timestamp = n < 2 || is_timestamp(sampled[n - 2]);
    if (last_was_timestamp) {
        if (penultimate_was_timestamp) {
            forbid(begin, kVocabEnd);
        } else {
            forbid(0, ids.eot);
        }
    }
    const auto last_ts = std::find_if(sampled.rbegin(), sampled.rend(), is_timestamp);
    if (last_ts != sampled.rend()) {
        const int64_t limit = (last_was_timestamp && !penultimate_was_timestamp)
                                  ? int64_t{*last_ts}
                                  : int64_t{*last_ts} + 1;
        forbid(begin, limit);
    }
    if (n == 0) {
        forbid(0, begin);
        if (filters.max_initial_timestamp_index) {
            forbid(int64_t{begin} + *filters.max_initial_timestamp_index + 1, kVocabEnd);
        }
    }
    rules.timestamp_rule = 1;  // (e), on the masked row
    return rules;
}

backend::ChoiceRequest choice_request(const ChoiceSpec& spec) {
    backend::ChoiceRequest request;
    request.suppressed = spec.filters->suppress;
    if (spec.filters->boost != 0.0F) request.boosted = spec.filters->boosted;
    request.boost = spec.filters->boost;
    request.timestamp_begin = spec.filters->ids.timestamp_begin;
    request.choices = spec.choices;
    for (const auto& sampled : spec.sampled)
        request.rows.push_back(row_rules(sampled, *spec.filters));
    return request;
}

TokenProbability token_probability(const TokenChoice& offer) {
    TokenProbability result;
    result.token = offer.tokens.at(0);
    result.probability = std::exp(offer.logprobs.at(0));
    for (size_t k = 1; k < offer.tokens.size(); ++k) {
        if (!(offer.logprobs[k] > -std::numeric_limits<double>::infinity())) continue;
        result.alternatives.push_back({offer.tokens[k], std::exp(offer.logprobs[k])});
    }
    return result;
}

TokenChoice token_choice(const backend::RowChoice& row) {
    TokenChoice choice;
    for (int k = 0; k < row.count; ++k) {
        choice.tokens.push_back(row.tokens[k]);
        choice.logprobs.push_back(row.logprob(k));
    }
    return choice;
}

}  // namespace earshot::decoding
