// Token choice where the logits are (issue 30): one step's logit filters as plain data, and what
// a row's choice sends back (its best tokens, their filtered logits, the log-softmax normaliser),
// a few hundred bytes instead of the [rows, Vocab] logits. Plain C++17 data that both sides of
// the CUDA module's boundary and its kernels read; decoding::row_rules fills RowRules.
#pragma once

#include <cstdint>
#include <vector>

namespace earshot::backend {

// The most tokens a row's choice ranks (a beam of 15 offers 16 per row).
inline constexpr int kMaxChoices = 16;
// The most id ranges a row's filters forbid at once: suppress_blank's blank and EOT,
// <|notimestamps|>, the pair rule, the monotonic rule and the initial-timestamp rule's two.
inline constexpr int kMaxForbiddenRanges = 8;

struct IdRange {
    int32_t begin = 0;  // [begin, end), clamped to the vocabulary where applied
    int32_t end = 0;
};

// One row's filters after the shared ones (boost, suppressed ids): the ranges set to -inf, then
// whether the timestamp rule (e) runs on the masked row.
struct RowRules {
    IdRange forbidden[kMaxForbiddenRanges] = {};
    int32_t forbidden_count = 0;
    int32_t timestamp_rule = 0;  // 1: rule (e) (timestamps likelier than any text token)
};

// One step's choice: shared filter data, each row's rules (rows.size() rows), how many tokens to
// rank per row (1: greedy; beam_size + 1 for a beam).
struct ChoiceRequest {
    std::vector<int32_t> suppressed;  // ids set to -inf in every row
    std::vector<int32_t> boosted;     // ids that get `boost` added first, in this order
    float boost = 0.0F;
    int32_t timestamp_begin = 0;  // <|0.00|>: rule (e) compares [begin, Vocab) with [0, begin)
    int32_t choices = 1;
    std::vector<RowRules> rows;
};

// One row's choice, best first: larger filtered logit first, the lower id first on ties (as
// std::max_element and the beam's sort). The log-probability of tokens[k] is
// double(logits[k]) - log_norm.
struct RowChoice {
    int32_t tokens[kMaxChoices] = {};
    float logits[kMaxChoices] = {};  // filtered
    double log_norm = 0.0;           // log(sum(exp(filtered row))); NaN when every id is -inf
    // Rule (e)'s inputs when it ran: log-sum-exp of the timestamp logits and the largest text
    // logit, both after the other filters; whether it forbade the text tokens.
    double timestamp_log_mass = 0.0;
    float best_text_logit = 0.0F;
    int32_t timestamp_forced = 0;
    int32_t count = 0;  // tokens ranked
    int32_t padding = 0;

    double logprob(int k) const { return double(logits[k]) - log_norm; }
};
static_assert(sizeof(RowChoice) == 160, "RowChoice crosses the module boundary as 160 bytes");

}  // namespace earshot::backend
