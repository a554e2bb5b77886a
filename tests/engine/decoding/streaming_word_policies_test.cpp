// The word policies under live dictation: timed words split from segments (times shared by
// characters) and LocalAgreement-2's common prefix of two hypotheses.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "earshot/engine/decoding/local_agreement.h"
#include "earshot/engine/decoding/timed_words.h"

namespace earshot::test {
namespace {

TEST(TimedWords, SplitsSegmentsAndSharesTimesByCharacters) {
    const int32_t ts = 1000;
    const std::vector<std::string> pieces = {"", " hello", ",", " big", " world", " again"};
    decoding::WordVocabulary vocabulary{
        .timestamp_begin = ts, .eot = 900, .decode_text = [&](std::span<const int32_t> ids) {
            std::string text;
            for (int32_t id : ids) text += pieces.at(static_cast<size_t>(id));
            return text;
        }};
    // <|0.00|> hello , world <|1.00|><|1.20|> big again (open, ends at 2.0 s)
    const std::vector<int32_t> tokens = {ts, 1, 2, 4, ts + 50, ts + 60, 3, 5};
    const auto words = decoding::split_timed_words(tokens, 0, vocabulary, 2.0);
    ASSERT_EQ(words.size(), 4u);
    EXPECT_EQ(words[0].text, " hello,");
    EXPECT_EQ(words[1].text, " world");
    EXPECT_TRUE(words[1].closes_segment);
    EXPECT_EQ(words[1].closing_index, 4u);
    EXPECT_NEAR(words[0].start_s, 0.0, 1e-12);
    EXPECT_NEAR(words[0].end_s, 6.0 / 11.0, 1e-12);  // 6 of 11 visible characters of [0, 1]
    EXPECT_NEAR(words[1].end_s, 1.0, 1e-12);
    EXPECT_NEAR(words[2].start_s, 1.2, 1e-12);
    EXPECT_NEAR(words[3].end_s, 2.0, 1e-12);
    // From index 6 on: "big again"; the context gives the open segment's start.
    const auto tail = decoding::split_timed_words(tokens, 6, vocabulary, 2.0);
    ASSERT_EQ(tail.size(), 2u);
    EXPECT_EQ(tail[0].text, " big");
    EXPECT_NEAR(tail[0].start_s, 1.2, 1e-12);
    EXPECT_EQ(decoding::comparable_word(" Hello,"), "hello");
}

TEST(LocalAgreementPolicy, CommitsTheCommonPrefixOfTwoHypotheses) {
    auto words = [](std::vector<std::string> texts) {
        std::vector<decoding::TimedWord> out;
        for (auto& t : texts) out.push_back({.text = t});
        return out;
    };
    decoding::LocalAgreement agreement;
    EXPECT_EQ(agreement.agree(words({" the", " cat"})), 0u);
    EXPECT_EQ(agreement.agree(words({" The", " cat,", " sat"})), 2u);  // case and punctuation
    EXPECT_EQ(agreement.previous(), std::vector<std::string>{"sat"});
    EXPECT_EQ(agreement.agree(words({" sad", " on"})), 0u);
    EXPECT_EQ(agreement.agree(words({" sad", " on", " the"})), 2u);
    agreement.reset();
    EXPECT_EQ(agreement.agree(words({" the"})), 0u);
}

}  // namespace
}  // namespace earshot::test
