// One window's token search, before any text: the initial tokens and filters it runs with, the
// first pass (which also reads no_speech_prob at SOT), the candidates it returns and their
// ranking (reference §5.1, §5.3, §5.7). The model must have listened to the window already.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/logit_filters.h"

namespace earshot::decoding {

struct WindowSetup {
    // [<|startofprev|> + prompt] + SOT sequence [+ <|notimestamps|>] [+ prefix]
    std::vector<int32_t> initial_tokens;
    size_t sot_index = 0;  // where SOT sits in initial_tokens
    int32_t eot = 0;
    int32_t nospeech = 0;
    int sample_len = 224;  // at most this many sampled tokens, EOT included
    LogitFilterSettings filters;
};

// One finished sequence: its sampled tokens up to (not including) the first EOT, the sum of
// their log-probabilities (EOT's included when it was sampled) and each token's own.
struct Candidate {
    std::vector<int32_t> tokens;
    double sum_logprob = 0;
    std::vector<double> token_logprobs;  // log P of each of `tokens` (EOT's not included)
};

struct SearchResult {
    std::vector<Candidate> candidates;  // one per row (sampling) or the finished beams
    double no_speech_prob = 0;
};

// The first pass on one row: prefill(initial tokens up to and including SOT) -> the SOT
// position's logits (softmax -> no_speech_prob), then step() through the rest of the initial
// tokens. Returns the logits for the first sampled token.
struct FirstPass {
    backend::HostTensor logits;  // [1, Vocab]
    double no_speech_prob = 0;
};
FirstPass run_first_pass(DecoderModel& model, const WindowSetup& setup);

// openai's MaximumLikelihoodRanker without a length penalty: the largest sum_logprob / L, L the
// token count; the first on ties. An empty candidate scores -inf (numpy would divide by zero).
size_t best_candidate(std::span<const Candidate> candidates);

// sum_logprob / (L + 1), the window's reported avg_logprob.
double average_logprob(const Candidate& candidate);

// The row `row` of logits [Rows, Vocab] as a copy the filters may change.
std::vector<float> logits_row(const backend::HostTensor& logits, int64_t row);

}  // namespace earshot::decoding
