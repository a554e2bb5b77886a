// Choosing a token from one row of filtered logits (reference §5.3): log-softmax, greedy argmax
// and sampling from softmax(logits / T).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace earshot::decoding {

// log_softmax(logits) in double; -inf stays -inf. All -inf gives all NaN.
std::vector<double> log_softmax(std::span<const float> logits);
// The first index of the largest value.
int32_t argmax(std::span<const float> logits);
// A draw from softmax(logits / temperature), temperature > 0; -inf ids are never drawn. Uses
// one 53-bit uniform (rng() >> 11) * 2^-53 per draw, so a seed fixes the sequence.
int32_t sample_token(std::span<const float> logits, double temperature, std::mt19937_64& rng);

}  // namespace earshot::decoding
