// Greedy and best-of-N sampling over one window (reference §5.3, openai's GreedyDecoder).
#include "earshot/engine/decoding/sampling_search.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "earshot/engine/decoding/token_choice.h"
#include "earshot/engine/decoding/token_selection.h"

namespace earshot::decoding {

SearchResult sample_window(DecoderModel& model, const WindowSetup& setup, double temperature,
                           int64_t rows, std::mt19937_64& rng) {
    if (rows < 1) throw std::invalid_argument("sample_window: rows " + std::to_string(rows));
    FirstPass first = run_first_pass(model, setup);
    if (rows > 1) model.expand(rows);

    const auto n_rows = static_cast<size_t>(rows);
    std::vector<std::vector<int32_t>> sampled(n_rows);
    std::vector<double> sums(n_rows, 0.0);
    std::vector<std::vector<double>> logprobs(n_rows);  // of each sampled token but EOT
    std::vector<bool> finished(n_rows, false);
    // Every row starts from the single first-pass row.
    backend::HostTensor logits = std::move(first.logits);
    bool shared_row = true;
    auto pos = static_cast<int64_t>(setup.initial_tokens.size());  // of the next sampled token
    // Greedy: each row's best token with its log-probability (token_choice.h), chosen by the
    // model where its logits are from the second sampled token on. Sampling reads the logits.
    const bool greedy = !(temperature > 0.0);
    auto choice_spec = [&] {
        ChoiceSpec spec{.filters = &setup.filters, .sampled = {}, .choices = 1};
        for (const auto& row : sampled) spec.sampled.emplace_back(row);
        return spec;
    };
    std::vector<TokenChoice> offers;
    if (greedy) offers = choose_on_host(logits, choice_spec());

    for (int i = 0; i < setup.sample_len; ++i) {
        std::vector<int32_t> next(n_rows);
        for (size_t r = 0; r < n_rows; ++r) {
            int32_t token = 0;
            double logprob = 0.0;
            if (greedy) {
                token = offers[r].tokens.at(0);
                logprob = offers[r].logprobs.at(0);
            } else {
                std::vector<float> row =
                    logits_row(logits, shared_row ? 0 : static_cast<int64_t>(r));
                apply_logit_filters(row, sampled[r], setup.filters);
                token = sample_token(row, temperature, rng);
                logprob = log_softmax(row)[static_cast<size_t>(token)];  // unscaled
            }
            if (finished[r]) {
                token = setup.eot;  // a finished row only repeats EOT
            } else {
                sums[r] += logprob;
                if (token != setup.eot) logprobs[r].push_back(logprob);
            }
            next[r] = token;
            sampled[r].push_back(token);
            if (token == setup.eot) finished[r] = true;
        }
        const bool all_done =
            std::all_of(finished.begin(), finished.end(), [](bool f) { return f; });
        // openai stops once the sequence is longer than max_tokens: the token just sampled (at
        // position pos) is kept but never fed.
        if (all_done || i + 1 == setup.sample_len || pos >= model.max_tokens()) break;
        backend::HostTensor fed = backend::HostTensor::i32({rows, 1}, std::move(next));
        if (greedy) {
            offers = model.step_choosing(fed, static_cast<int32_t>(pos), choice_spec());
        } else {
            logits = model.step(fed, static_cast<int32_t>(pos));
        }
        shared_row = false;
        ++pos;
    }

    SearchResult result;
    result.no_speech_prob = first.no_speech_prob;
    for (size_t r = 0; r < n_rows; ++r) {
        const auto eot_at = std::find(sampled[r].begin(), sampled[r].end(), setup.eot);
        result.candidates.push_back({{sampled[r].begin(), eot_at}, sums[r], logprobs[r]});
    }
    return result;
}

}  // namespace earshot::decoding
