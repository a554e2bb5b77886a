// Greedy continuation of a forced prefix (streaming).
#include "earshot/engine/decoding/continuation_decoder.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "earshot/engine/decoding/logit_filters.h"
#include "earshot/engine/decoding/token_choice.h"
#include "earshot/engine/decoding/token_probability.h"
#include "earshot/engine/decoding/token_selection.h"

namespace earshot::decoding {

Continuation decode_continuation(DecoderModel& model, const WindowSetup& setup, size_t forced_begin,
                                 int max_new_tokens, const std::atomic<bool>* cancel) {
    const std::vector<int32_t>& initial = setup.initial_tokens;
    if (forced_begin <= setup.sot_index || forced_begin > initial.size()) {
        throw std::invalid_argument("decode_continuation: forced tokens begin at " +
                                    std::to_string(forced_begin) + ", not after SOT at " +
                                    std::to_string(setup.sot_index) + " within " +
                                    std::to_string(initial.size()) + " initial tokens");
    }
    if (static_cast<int64_t>(initial.size()) >= model.max_tokens()) {
        throw std::invalid_argument("decode_continuation: " + std::to_string(initial.size()) +
                                    " initial tokens leave no position below max_tokens " +
                                    std::to_string(model.max_tokens()));
    }
    if (model.rows() != 1) {
        throw std::logic_error("decode_continuation: the model has " +
                               std::to_string(model.rows()) + " rows; listen() first");
    }

    Continuation result;
    const auto through_sot = static_cast<int64_t>(setup.sot_index) + 1;
    backend::HostTensor logits = model.prefill(backend::HostTensor::i32(
        {1, through_sot}, std::vector<int32_t>(initial.begin(), initial.begin() + through_sot)));
    {
        const std::vector<double> at_sot = log_softmax(logits_row(logits, 0));
        result.no_speech_prob = std::exp(at_sot.at(static_cast<size_t>(setup.nospeech)));
    }
    const auto n_initial = static_cast<int64_t>(initial.size());
    if (n_initial > through_sot) {
        // [1, S] at positions 0 .. S - 1 -> logits [1, Vocab] of the last position
        logits = model.prefill(backend::HostTensor::i32({1, n_initial}, initial));
    }

    std::vector<int32_t> sampled(initial.begin() + static_cast<std::ptrdiff_t>(forced_begin),
                                 initial.end());
    const size_t n_forced = sampled.size();
    double sum_logprob = 0.0;
    int32_t position = static_cast<int32_t>(n_initial);
    // The best token and kTokenAlternatives others per step (token_choice.h): from the prefill's
    // logits first, then chosen by the model where its logits are.
    auto choice_spec = [&] {
        return ChoiceSpec{.filters = &setup.filters,
                          .sampled = {std::span<const int32_t>(sampled)},
                          .choices = static_cast<int>(kTokenAlternatives) + 1};
    };
    TokenChoice offer = choose_on_host(logits, choice_spec()).at(0);
    for (int i = 0; i < max_new_tokens; ++i) {
        if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
            result.cancelled = true;
            break;
        }
        const int32_t token = offer.tokens.at(0);
        sum_logprob += offer.logprobs.at(0);
        if (token == setup.eot) {
            result.reached_eot = true;
            break;
        }
        sampled.push_back(token);
        result.probabilities.push_back(token_probability(offer));
        if (position >= model.max_tokens()) break;  // no position left for another step
        offer =
            model.step_choosing(backend::HostTensor::i32({1, 1}, {token}), position, choice_spec())
                .at(0);
        ++position;
    }
    result.tokens.assign(sampled.begin() + static_cast<std::ptrdiff_t>(n_forced), sampled.end());
    result.avg_logprob = sum_logprob / static_cast<double>(result.tokens.size() + 1);
    return result;
}

}  // namespace earshot::decoding
