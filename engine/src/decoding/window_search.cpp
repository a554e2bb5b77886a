// One window's first pass (no_speech_prob at SOT) and the ranking of candidates (§5.3, §5.7).
#include "earshot/engine/decoding/window_search.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "earshot/engine/decoding/token_selection.h"

namespace earshot::decoding {

FirstPass run_first_pass(DecoderModel& model, const WindowSetup& setup) {
    const auto& initial = setup.initial_tokens;
    if (setup.sot_index >= initial.size()) {
        throw std::invalid_argument("window setup: SOT index " + std::to_string(setup.sot_index) +
                                    " outside " + std::to_string(initial.size()) +
                                    " initial tokens");
    }
    if (static_cast<int64_t>(initial.size()) >= model.max_tokens()) {
        throw std::invalid_argument("window setup: " + std::to_string(initial.size()) +
                                    " initial tokens leave no position below max_tokens " +
                                    std::to_string(model.max_tokens()));
    }
    if (model.rows() != 1) {
        throw std::logic_error("run_first_pass: the model has " + std::to_string(model.rows()) +
                               " rows; listen() first");
    }

    const auto through_sot = static_cast<int64_t>(setup.sot_index) + 1;
    std::vector<int32_t> head(initial.begin(), initial.begin() + through_sot);
    FirstPass pass;
    pass.logits = model.prefill(backend::HostTensor::i32({1, through_sot}, std::move(head)));
    // openai reads the unfiltered softmax at SOT (the prediction of the token after it).
    const std::vector<double> at_sot = log_softmax(logits_row(pass.logits, 0));
    pass.no_speech_prob = std::exp(at_sot.at(static_cast<size_t>(setup.nospeech)));

    for (size_t i = setup.sot_index + 1; i < initial.size(); ++i) {
        pass.logits =
            model.step(backend::HostTensor::i32({1, 1}, {initial[i]}), static_cast<int32_t>(i));
    }
    return pass;
}

size_t best_candidate(std::span<const Candidate> candidates) {
    if (candidates.empty()) throw std::logic_error("best_candidate: no candidates");
    size_t best = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < candidates.size(); ++i) {
        const auto& c = candidates[i];
        const double score = c.tokens.empty() ? -std::numeric_limits<double>::infinity()
                                              : c.sum_logprob / double(c.tokens.size());
        if (i == 0 || score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

double average_logprob(const Candidate& candidate) {
    return candidate.sum_logprob / double(candidate.tokens.size() + 1);
}

std::vector<float> logits_row(const backend::HostTensor& logits, int64_t row) {
    const int64_t vocab = logits.dim(1);
    const auto values = logits.f32_values();
    const auto begin = values.begin() + row * vocab;
    return {begin, begin + vocab};
}

}  // namespace earshot::decoding
