// How sure the decoder was of a sampled token: its probability after Whisper's filters, and the
// most probable other tokens at that step (what the UI shows on a token of the live hypothesis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace earshot::decoding {

struct TokenAlternative {
    int32_t token = 0;
    double probability = 0.0;
};

struct TokenProbability {
    int32_t token = 0;
    double probability = 0.0;                    // exp(logprob) of the sampled token
    std::vector<TokenAlternative> alternatives;  // the most probable others, most probable first
};

// From one step's log-softmax over the filtered logits ([Vocab]): P(token) and the `count` most
// probable other tokens with a probability above zero (lower id first on ties). Throws
// std::out_of_range when `token` is outside the vocabulary.
TokenProbability token_probability(std::span<const double> logprobs, int32_t token, size_t count);

}  // namespace earshot::decoding
