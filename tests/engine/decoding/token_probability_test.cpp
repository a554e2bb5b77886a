// token_probability: the sampled token's probability and the most probable others, worked out by
// hand on a small log-softmax.
#include "earshot/engine/decoding/token_probability.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace earshot::decoding {
namespace {

TEST(TokenProbability, TheTokenAndItsMostProbableAlternatives) {
    // Probabilities 0.5, 0.1, 0.25, 0.1, 0.05, 0 (a suppressed token) as log-probabilities.
    const std::vector<double> logprobs = {std::log(0.5), std::log(0.1),  std::log(0.25),
                                          std::log(0.1), std::log(0.05), -INFINITY};
    const TokenProbability p = token_probability(logprobs, 0, 3);
    EXPECT_EQ(p.token, 0);
    EXPECT_NEAR(p.probability, 0.5, 1e-12);
    ASSERT_EQ(p.alternatives.size(), 3u);
    EXPECT_EQ(p.alternatives[0].token, 2);
    EXPECT_NEAR(p.alternatives[0].probability, 0.25, 1e-12);
    // A tie (tokens 1 and 3, 0.1 each): the lower id first.
    EXPECT_EQ(p.alternatives[1].token, 1);
    EXPECT_EQ(p.alternatives[2].token, 3);
    EXPECT_NEAR(p.alternatives[2].probability, 0.1, 1e-12);

    // Not the argmax (a sampled token): the argmax is its first alternative.
    const TokenProbability q = token_probability(logprobs, 4, 2);
    EXPECT_NEAR(q.probability, 0.05, 1e-12);
    ASSERT_EQ(q.alternatives.size(), 2u);
    EXPECT_EQ(q.alternatives[0].token, 0);
    EXPECT_EQ(q.alternatives[1].token, 2);

    // Suppressed tokens (probability 0) are never alternatives.
    const TokenProbability all = token_probability(logprobs, 0, 10);
    EXPECT_EQ(all.alternatives.size(), 4u);
    EXPECT_TRUE(token_probability(logprobs, 0, 0).alternatives.empty());
    EXPECT_THROW((void)token_probability(logprobs, 6, 3), std::out_of_range);
    EXPECT_THROW((void)token_probability(logprobs, -1, 3), std::out_of_range);
}

}  // namespace
}  // namespace earshot::decoding
