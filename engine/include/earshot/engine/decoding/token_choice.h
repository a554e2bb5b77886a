// The tokens one step offers per row after Whisper's logit filters (reference §5.2-§5.3): the
// best `choices` ids of each row with their log-probabilities, chosen on the host from logits
// (choose_on_host), or where a backend keeps the logits (DecoderModel::step_choosing) from the
// same filters written as data (row_rules).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/token_choice.h"
#include "earshot/engine/decoding/logit_filters.h"
#include "earshot/engine/decoding/token_probability.h"

namespace earshot::decoding {

// One row's offer, best first: larger log-probability first, the lower id first on ties.
struct TokenChoice {
    std::vector<int32_t> tokens;
    std::vector<double> logprobs;  // log-softmax of the filtered row at each token
};

// What a step's choice needs: the window's filters, each row's sampled tokens (after the
// initial ones, as apply_logit_filters takes them) and how many tokens each row offers.
struct ChoiceSpec {
    const LogitFilterSettings* filters = nullptr;
    std::vector<std::span<const int32_t>> sampled;  // [rows]
    int choices = 1;
};

// apply_logit_filters on a copy of `logits` [Vocab], log_softmax, then the best `choices` ids
// (choices 1: argmax, the first of equal maxima).
TokenChoice choose_on_host(std::span<const float> logits, std::span<const int32_t> sampled,
                           const LogitFilterSettings& filters, int choices);
// NaN (a row with every token suppressed) ranks as -inf.
double rank_value(double logprob);
// The best `choices` ids of a row of log-probabilities with theirs: larger first (by rank_value),
// the lower id first on ties.
TokenChoice best_of(std::span<const double> logprobs, int choices);
// choose_on_host for every row of `logits` [rows or 1, Vocab] (one row: every row reads it).
std::vector<TokenChoice> choose_on_host(const backend::HostTensor& logits, const ChoiceSpec& spec);

// The filters of one row after the shared ones (boost, suppressed ids) as id ranges, and whether
// rule (e) runs: apply_logit_filters' effect for a backend that filters where the logits are.
backend::RowRules row_rules(std::span<const int32_t> sampled, const LogitFilterSettings& filters);
// The offer's first token with its probability and the others of the offer whose probability is
// above zero as its alternatives: token_probability(logprobs, token, offer size - 1) when the
// first token is the argmax, as in greedy decoding.
TokenProbability token_probability(const TokenChoice& offer);
// The whole step's request.
backend::ChoiceRequest choice_request(const ChoiceSpec& spec);
// A backend's row choice as decoding takes it (log-probabilities in double).
TokenChoice token_choice(const backend::RowChoice& row);

}  // namespace earshot::decoding
