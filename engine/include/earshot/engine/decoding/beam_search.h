// Beam search with patience (reference §5.3, openai's BeamSearchDecoder): the bookkeeping on
// log-probabilities (BeamSearch) and the loop that drives a DecoderModel with it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/token_choice.h"
#include "earshot/engine/decoding/window_search.h"

namespace earshot::decoding {

class BeamSearch {
public:
    // max_candidates = round(beam_size * patience), half to even as Python rounds.
    BeamSearch(int beam_size, double patience, int32_t eot);

    struct Beam {
        std::vector<int32_t> tokens;  // sampled tokens, no EOT
        double sum_logprob = 0;
        std::vector<double> token_logprobs;  // log P of each of `tokens`
    };

    // One step. logprobs [beam_size, vocab]: the log-softmax of live beam r's filtered logits.
    // Every beam offers its top beam_size + 1 tokens; the candidates (one per distinct sequence)
    // are taken best first: those ending in EOT are finished, the others become the new live
    // beams until beam_size are kept. The finished pool takes the newly finished, best first,
    // until it holds max_candidates. Returns, per new live beam, the row it extends (for
    // DecoderModel::reorder).
    std::vector<int64_t> update(std::span<const double> logprobs, int64_t vocab);
    // The same step from each live beam's offer (token_choice.h): its top beam_size + 1 tokens,
    // best first, with their log-probabilities (NaN ranks as -inf).
    std::vector<int64_t> update(std::span<const TokenChoice> offers);

    const std::vector<Beam>& live() const { return live_; }
    const std::vector<Candidate>& finished() const { return finished_; }
    bool completed() const;  // the pool holds max_candidates
    int max_candidates() const { return max_candidates_; }

    // The finished sequences; when fewer than beam_size finished, the best live beams are added
    // (as if EOT followed, its logprob not counted) until there are beam_size.
    std::vector<Candidate> finalize() const;

private:
    int beam_size_;
    int max_candidates_;
    int32_t eot_;
    std::vector<Beam> live_;
    std::vector<Candidate> finished_;  // in insertion order (ranking takes the first on ties)
};

// Beam search on a model that has listened (one row): run_first_pass, expand(beam_size), then
// steps with the rows reordered after each update.
// Candidates: BeamSearch::finalize().
SearchResult beam_search_window(DecoderModel& model, const WindowSetup& setup, int beam_size,
                                double patience);

}  // namespace earshot::decoding
