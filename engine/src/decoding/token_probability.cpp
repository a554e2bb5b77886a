// token_probability: one pass over the vocabulary keeping the `count` best others in a small
// sorted list (count is a handful; the vocabulary is 51865).
#include "earshot/engine/decoding/token_probability.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace earshot::decoding {

TokenProbability token_probability(std::span<const double> logprobs, int32_t token, size_t count) {
    if (token < 0 || static_cast<size_t>(token) >= logprobs.size()) {
        throw std::out_of_range("token_probability: token " + std::to_string(token) +
                                " is outside the vocabulary of " + std::to_string(logprobs.size()));
    }
    TokenProbability result;
    result.token = token;
    result.probability = std::exp(logprobs[static_cast<size_t>(token)]);
    struct Candidate {
        double logprob;
        int32_t token;
    };
    std::vector<Candidate> best;  // most probable first, at most `count`
    best.reserve(count + 1);
    for (size_t id = 0; id < logprobs.size() && count > 0; ++id) {
        const double logprob = logprobs[id];
        if (static_cast<int32_t>(id) == token ||
            !(logprob > -std::numeric_limits<double>::infinity()))
            continue;
        if (best.size() == count && logprob <= best.back().logprob) continue;
        size_t at = best.size();
        while (at > 0 && best[at - 1].logprob < logprob) --at;
        best.insert(best.begin() + static_cast<std::ptrdiff_t>(at),
                    {logprob, static_cast<int32_t>(id)});
        if (best.size() > count) best.pop_back();
    }
    for (const Candidate& candidate : best) {
        result.alternatives.push_back({candidate.token, std::exp(candidate.logprob)});
    }
    return result;
}

}  // namespace earshot::decoding
