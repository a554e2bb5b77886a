// Temperature fallback (reference §5.4): compression ratios against hand-checked zlib sizes, the
// fallback rule with its no-speech exception, and the order temperatures are tried in.
#include "earshot/engine/decoding/fallback.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "earshot/engine/decoding/compression_ratio.h"

namespace {

using namespace earshot::decoding;

std::string repeat(const std::string& word, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += (i ? " " : "") + word;
    return out;
}

TEST(DecodingCompressionRatio, MatchesZlibSizes) {
    // zlib stream = 2-byte header + deflate + 4-byte Adler-32. "" deflates to 2 bytes (an empty
    // fixed block): 8 in all, ratio 0 / 8. "a" deflates to 3 bytes: 9 in all, ratio 1 / 9.
    EXPECT_DOUBLE_EQ(compression_ratio(""), 0.0);
    EXPECT_DOUBLE_EQ(compression_ratio("a"), 1.0 / 9.0);
    // Leading and trailing whitespace is stripped before compressing.
    EXPECT_DOUBLE_EQ(compression_ratio("  \ta\n"), 1.0 / 9.0);
    // 11 bytes -> 19 (fixed Huffman, no repeats worth a match).
    EXPECT_DOUBLE_EQ(compression_ratio(" hello world "), 11.0 / 19.0);
    // "the" x 20: 79 bytes -> 15 (one literal run, then a long match).
    EXPECT_DOUBLE_EQ(compression_ratio(repeat("the", 20)), 79.0 / 15.0);
    // 30 bytes of "abc" x 10 -> 13: 2.31, just under the 2.4 threshold.
    EXPECT_DOUBLE_EQ(compression_ratio("abcabcabcabcabcabcabcabcabcabc"), 30.0 / 13.0);
}

WindowResult result(double avg_logprob, double no_speech, const std::string& text) {
    WindowResult r;
    r.avg_logprob = avg_logprob;
    r.no_speech_prob = no_speech;
    r.text = text;
    r.compression_ratio = compression_ratio(text);
    return r;
}

TEST(DecodingFallback, RepetitiveTextAndLowLogprobFallBack) {
    const DecodingOptions options;
    EXPECT_FALSE(needs_fallback(result(-0.3, 0.1, " And so my fellow Americans."), options));
    // "the the ..." compresses 5.27x > 2.4
    EXPECT_TRUE(needs_fallback(result(-0.3, 0.1, repeat("the", 20)), options));
    EXPECT_TRUE(needs_fallback(result(-1.2, 0.1, " Hello."), options));
    EXPECT_FALSE(needs_fallback(result(-1.0, 0.1, " Hello."), options));  // not below -1
}

TEST(DecodingFallback, LikelySilenceIsAccepted) {
    const DecodingOptions options;
    // no_speech 0.7 > 0.6 and avg_logprob < -1: accepted even though improbable, and even when
    // the text is repetitive (openai's order: the exception comes last).
    EXPECT_FALSE(needs_fallback(result(-1.5, 0.7, " Hello."), options));
    EXPECT_FALSE(needs_fallback(result(-1.5, 0.7, repeat("the", 20)), options));
    // The exception needs both: high no_speech with a good logprob still checks repetition.
    EXPECT_TRUE(needs_fallback(result(-0.5, 0.7, repeat("the", 20)), options));
    EXPECT_TRUE(needs_fallback(result(-1.5, 0.6, " Hello."), options));  // not above 0.6
    // A NaN threshold is off, as openai's None.
    DecodingOptions off = options;
    off.compression_ratio_threshold = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(needs_fallback(result(-0.3, 0.1, repeat("the", 20)), off));
}

TEST(DecodingFallback, TriesTemperaturesInOrderUntilOneIsAccepted) {
    DecodingOptions options;
    std::vector<double> tried;
    auto decode_at = [&](double t) {
        tried.push_back(t);
        WindowResult r = t < 0.3 ? result(-0.2, 0.0, repeat("the", 20)) : result(-0.2, 0.0, " Hi.");
        r.temperature = t;
        return r;
    };
    const WindowResult accepted = run_temperature_fallback(options, decode_at);
    EXPECT_EQ(tried, (std::vector<double>{0.0, 0.2, 0.4}));
    EXPECT_DOUBLE_EQ(accepted.temperature, 0.4);
    EXPECT_EQ(accepted.text, " Hi.");

    tried.clear();
    auto always_bad = [&](double t) {
        tried.push_back(t);
        WindowResult r = result(-2.0, 0.0, " x");
        r.temperature = t;
        return r;
    };
    EXPECT_DOUBLE_EQ(run_temperature_fallback(options, always_bad).temperature, 1.0);
    EXPECT_EQ(tried.size(), 6U);

    options.temperatures.clear();
    EXPECT_THROW(run_temperature_fallback(options, always_bad), std::invalid_argument);
}

}  // namespace
