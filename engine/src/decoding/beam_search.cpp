// Beam search with patience over one window (reference §5.3, openai's BeamSearchDecoder).
#include "earshot/engine/decoding/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "earshot/engine/decoding/token_selection.h"

namespace earshot::decoding {

BeamSearch::BeamSearch(int beam_size, double patience, int32_t eot)
    : beam_size_(beam_size), eot_(eot) {
    if (beam_size < 1) {
        throw std::invalid_argument("beam search: beam_size " + std::to_string(beam_size));
    }
    if (!(patience > 0.0)) {
        throw std::invalid_argument("beam search: patience must be > 0, got " +
                                    std::to_string(patience));
    }
    // Python's round(): half to even under the default rounding mode.
    max_candidates_ = static_cast<int>(std::nearbyint(double(beam_size) * patience));
    if (max_candidates_ < 1) {
        throw std::invalid_argument("beam search: round(beam_size * patience) must be >= 1");
    }
    live_.assign(static_cast<size_t>(beam_size), Beam{});
}

std::vector<int64_t> BeamSearch::update(std::span<const double> logprobs, int64_t vocab) {
    const size_t n_live = live_.size();
    if (vocab < 1 || logprobs.size() != n_live * static_cast<size_t>(vocab)) {
        throw std::invalid_argument("beam search: logprobs hold " +
                                    std::to_string(logprobs.size()) + " values, not " +
                                    std::to_string(n_live) + " beams x " + std::to_string(vocab));
    }
    std::vector<TokenChoice> offers(n_live);
    for (size_t r = 0; r < n_live; ++r) {
        // top beam_size + 1, larger first, lower id first on ties
        offers[r] =
            best_of(logprobs.subspan(r * static_cast<size_t>(vocab), static_cast<size_t>(vocab)),
                    beam_size_ + 1);
    }
    return update(offers);
}

std::vector<int64_t> BeamSearch::update(std::span<const TokenChoice> offers) {
    const size_t n_live = live_.size();
    if (offers.size() != n_live) {
        throw std::invalid_argument("beam search: " + std::to_string(offers.size()) +
                                    " rows of offers for " + std::to_string(n_live) + " beams");
    }
    struct Scored {
        std::vector<int32_t> tokens;  // the beam's tokens + the new one
        double score = 0;
        int64_t source = 0;
        std::vector<double> token_logprobs;  // of the beam's tokens + the new one's
    };
    // Keyed by sequence as openai's dict: a repeated sequence (the identical beams of the first
    // step) keeps its first place and takes the later source.
    std::vector<Scored> candidates;
    std::map<std::vector<int32_t>, size_t> seen;
    for (size_t r = 0; r < n_live; ++r) {
        const TokenChoice& offer = offers[r];
        if (offer.tokens.size() != offer.logprobs.size()) {
            throw std::invalid_argument("beam search: an offer's tokens and logprobs differ");
        }
        for (size_t k = 0; k < offer.tokens.size(); ++k) {
            const int32_t token = offer.tokens[k];
            std::vector<int32_t> sequence = live_[r].tokens;
            sequence.push_back(token);
            const double logprob = rank_value(offer.logprobs[k]);
            const double score = live_[r].sum_logprob + logprob;
            std::vector<double> path = live_[r].token_logprobs;
            path.push_back(logprob);
            const auto [it, inserted] = seen.try_emplace(sequence, candidates.size());
            if (inserted) {
                candidates.push_back(
                    {std::move(sequence), score, static_cast<int64_t>(r), std::move(path)});
            } else {
                candidates[it->second].score = score;
                candidates[it->second].source = static_cast<int64_t>(r);
                candidates[it->second].token_logprobs = std::move(path);
            }
        }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Scored& a, const Scored& b) { return a.score > b.score; });

    std::vector<Beam> next_live;
    std::vector<int64_t> sources;
    std::vector<Candidate> newly_finished;
    for (auto& c : candidates) {
        if (c.tokens.back() == eot_) {
            c.tokens.pop_back();
            c.token_logprobs.pop_back();  // EOT's
            newly_finished.push_back({std::move(c.tokens), c.score, std::move(c.token_logprobs)});
        } else {
            next_live.push_back({std::move(c.tokens), c.score, std::move(c.token_logprobs)});
            sources.push_back(c.source);
            if (next_live.size() == static_cast<size_t>(beam_size_)) break;
        }
    }
    for (auto& f : newly_finished) {  // already best first
        if (static_cast<int>(finished_.size()) >= max_candidates_) break;
        finished_.push_back(std::move(f));
    }
    if (next_live.size() != n_live) {
        throw std::logic_error("beam search: " + std::to_string(next_live.size()) +
                               " live beams after a step, expected " + std::to_string(n_live));
    }
    live_ = std::move(next_live);
    return sources;
}

bool BeamSearch::completed() const { return static_cast<int>(finished_.size()) >= max_candidates_; }

std::vector<Candidate> BeamSearch::finalize() const {
    std::vector<Candidate> result = finished_;
    if (static_cast<int>(result.size()) < beam_size_) {
        std::vector<size_t> order(live_.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return live_[a].sum_logprob > live_[b].sum_logprob;
        });
        for (size_t i : order) {
            result.push_back({live_[i].tokens, live_[i].sum_logprob, live_[i].token_logprobs});
            if (static_cast<int>(result.size()) >= beam_size_) break;
        }
    }
    return result;
}

SearchResult beam_search_window(DecoderModel& model, const WindowSetup& setup, int beam_size,
                                double patience) {
    BeamSearch search(beam_size, patience, setup.eot);
    FirstPass first = run_first_pass(model, setup);
    model.expand(beam_size);

    const auto rows = static_cast<size_t>(beam_size);
    auto pos = static_cast<int64_t>(setup.initial_tokens.size());
    // Each live beam offers its top beam_size + 1 tokens (token_choice.h): the first step from
    // the first-pass row every beam shares, then chosen by the model where its logits are.
    auto choice_spec = [&] {
        ChoiceSpec spec{
            .filters = &setup.filters,
            .sampled = {},
            .choices = static_cast<int>(std::min<int64_t>(beam_size + 1, model.vocab()))};
        for (const auto& beam : search.live()) spec.sampled.emplace_back(beam.tokens);
        return spec;
    };
    std::vector<TokenChoice> offers = choose_on_host(first.logits, choice_spec());

    for (int i = 0; i < setup.sample_len; ++i) {
        const std::vector<int64_t> sources = search.update(offers);
        if (search.completed() || i + 1 == setup.sample_len || pos >= model.max_tokens()) break;
        model.reorder(sources);
        std::vector<int32_t> next(rows);
        for (size_t r = 0; r < rows; ++r) next[r] = search.live()[r].tokens.back();
        offers = model.step_choosing(backend::HostTensor::i32({beam_size, 1}, std::move(next)),
                                     static_cast<int32_t>(pos), choice_spec());
        ++pos;
    }
    return {search.finalize(), first.no_speech_prob};
}

}  // namespace earshot::decoding
