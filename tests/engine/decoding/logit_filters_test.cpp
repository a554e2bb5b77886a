// Whisper's logit filters (reference §5.2) on hand-made rows, and through greedy decoding of a
// scripted model: pairs, monotonic timestamps, the first timestamp's limit, the timestamp-mass
// rule, suppressed ids, blank suppression at the first step only.
#include "earshot/engine/decoding/logit_filters.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "earshot/engine/decoding/sampling_search.h"
#include "earshot/engine/decoding/window_search.h"
#include "scripted_decoder_model.h"

namespace {

using namespace earshot::decoding;

// A small vocabulary: text 0..39 (blank 5), EOT 40, SOT 41, nospeech 42, notimestamps 44,
// timestamps 45..59 (<|0.00|> .. <|0.28|>).
constexpr int64_t kVocab = 60;
constexpr int32_t kEot = 40, kSot = 41, kNoSpeech = 42, kNoTimestamps = 44, kTs = 45;
constexpr float kInf = std::numeric_limits<float>::infinity();

FilterTokens ids() {
    return {.blank = 5, .eot = kEot, .no_timestamps = kNoTimestamps, .timestamp_begin = kTs};
}

std::vector<float> zeros() { return std::vector<float>(kVocab, 0.0F); }
// Text ids at 5, timestamps at 0: the 15 timestamps' mass (ln 15 = 2.7) stays below any text
// token, so rule (e) leaves the row alone.
std::vector<float> text_heavy() {
    std::vector<float> row(kVocab, 5.0F);
    for (int32_t t = kTs; t < kVocab; ++t) row[static_cast<size_t>(t)] = 0.0F;
    return row;
}

// Ids left finite.
std::vector<int32_t> allowed(const std::vector<float>& row) {
    std::vector<int32_t> out;
    for (size_t i = 0; i < row.size(); ++i)
        if (row[i] != -kInf) out.push_back(static_cast<int32_t>(i));
    return out;
}

std::vector<int32_t> range(int32_t begin, int32_t end) {
    std::vector<int32_t> out;
    for (int32_t i = begin; i < end; ++i) out.push_back(i);
    return out;
}

std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(DecodingFilters, MaxInitialTimestampIndexRoundsHalfToEven) {
    EXPECT_EQ(max_initial_timestamp_index(1.0), 50);
    EXPECT_EQ(max_initial_timestamp_index(0.05), 2);  // 2.5 -> 2, as Python's round
    EXPECT_EQ(max_initial_timestamp_index(0.03), 2);  // 1.5 -> 2
    EXPECT_EQ(max_initial_timestamp_index(0.0), std::nullopt);
}

TEST(DecodingFilters, SuppressTokenSetExpandsMinusOne) {
    const std::vector<int32_t> non_speech{9, 3};
    const std::vector<int32_t> always{41, 42, 3};
    EXPECT_EQ(suppress_token_set(std::vector<int32_t>{-1, 7}, non_speech, always),
              (std::vector<int32_t>{3, 7, 9, 41, 42}));
    EXPECT_EQ(suppress_token_set(std::vector<int32_t>{7}, non_speech, always),
              (std::vector<int32_t>{3, 7, 41, 42}));
    EXPECT_EQ(suppress_token_set({}, non_speech, always), (std::vector<int32_t>{3, 41, 42}));
    EXPECT_THROW(suppress_token_set(std::vector<int32_t>{-2}, non_speech, always),
                 std::invalid_argument);
}

TEST(DecodingFilters, BlankAndEotSuppressedAtTheFirstStepOnly) {
    auto row = zeros();
    suppress_blank(row, {}, ids());
    EXPECT_EQ(allowed(row), concat(concat(range(0, 5), range(6, 40)), range(41, 60)));
    auto later = zeros();
    const std::vector<int32_t> sampled{kTs};
    suppress_blank(later, sampled, ids());
    EXPECT_EQ(allowed(later), range(0, 60));
}

TEST(DecodingFilters, FirstTokenIsATimestampUpToTheLimit) {
    auto row = zeros();
    apply_timestamp_rules(row, {}, ids(), 3);
    EXPECT_EQ(allowed(row), range(kTs, kTs + 4));  // <|0.00|> .. <|0.06|>
    auto unlimited = zeros();
    apply_timestamp_rules(unlimited, {}, ids(), std::nullopt);
    EXPECT_EQ(allowed(unlimited), range(kTs, 60));
}

TEST(DecodingFilters, TimestampsComeInPairsAndNeverDecrease) {
    std::optional<int32_t> limit = 3;
    {  // a lone opening timestamp: text or EOT next (not another timestamp)
        auto row = text_heavy();
        apply_timestamp_rules(row, std::vector<int32_t>{46}, ids(), limit);
        EXPECT_EQ(allowed(row), concat(range(0, 44), {}));  // 0..43, EOT included
    }
    {  // text after an opening timestamp: text, EOT, or a timestamp after the opening one
        auto row = text_heavy();
        apply_timestamp_rules(row, std::vector<int32_t>{46, 10}, ids(), limit);
        EXPECT_EQ(allowed(row), concat(range(0, 44), range(47, 60)));
    }
    {  // a closing timestamp: EOT or a timestamp no earlier than it (a segment may start there)
        auto row = text_heavy();
        apply_timestamp_rules(row, std::vector<int32_t>{46, 10, 48}, ids(), limit);
        EXPECT_EQ(allowed(row), concat(range(40, 44), range(48, 60)));
    }
    {  // a pair closed and reopened: text or EOT next
        auto row = text_heavy();
        apply_timestamp_rules(row, std::vector<int32_t>{46, 10, 48, 48}, ids(), limit);
        EXPECT_EQ(allowed(row), range(0, 44));
    }
    {  // the same rows at 0 everywhere: the timestamps' mass wins (rule e), text is forbidden
        auto row = zeros();
        apply_timestamp_rules(row, std::vector<int32_t>{46, 10}, ids(), limit);
        EXPECT_EQ(allowed(row), range(47, 60));
    }
    {  // <|notimestamps|> is always suppressed
        auto row = text_heavy();
        apply_timestamp_rules(row, std::vector<int32_t>{46, 10, 11}, ids(), limit);
        EXPECT_EQ(row[kNoTimestamps], -kInf);
        EXPECT_EQ(allowed(row), concat(range(0, 44), range(47, 60)));
    }
}

TEST(DecodingFilters, TimestampMassAboveTheBestTextTokenForcesATimestamp) {
    // After [<|0.02|>, text], timestamps 47..59 (13 of them) stay allowed at logit 0.5 each:
    // logsumexp = 0.5 + ln 13 = 3.0649. The best text token at 2.0 loses, at 3.2 wins.
    auto make = [](float best_text) {
        std::vector<float> row(kVocab, -10.0F);
        row[7] = best_text;
        for (int32_t t = kTs; t < kVocab; ++t) row[static_cast<size_t>(t)] = 0.5F;
        return row;
    };
    const std::vector<int32_t> sampled{46, 10};
    auto forced = make(2.0F);
    apply_timestamp_rules(forced, sampled, ids(), 3);
    EXPECT_EQ(allowed(forced), range(47, 60));
    auto free = make(3.2F);
    apply_timestamp_rules(free, sampled, ids(), 3);
    EXPECT_EQ(allowed(free), concat(range(0, 44), range(47, 60)));
    EXPECT_FLOAT_EQ(free[7], 3.2F);
}

TEST(DecodingFilters, SettingsSwitchTheFiltersInOrder) {
    LogitFilterSettings settings;
    settings.ids = ids();
    settings.suppress = {3, 41};
    settings.max_initial_timestamp_index = 3;
    auto row = zeros();
    apply_logit_filters(row, {}, settings);
    EXPECT_EQ(allowed(row), range(kTs, kTs + 4));

    settings.timestamps = false;
    auto plain = zeros();
    apply_logit_filters(plain, {}, settings);
    std::vector<int32_t> want;
    for (int32_t i = 0; i < kVocab; ++i)
        if (i != 3 && i != 5 && i != kEot && i != 41) want.push_back(i);
    EXPECT_EQ(allowed(plain), want);
}

// The vocabulary bias raises its tokens before the filters, and a suppressed one stays out.
TEST(DecodingFilters, VocabularyBiasRaisesItsTokensButNotSuppressedOnes) {
    LogitFilterSettings settings;
    settings.ids = ids();
    settings.suppress = {3};
    settings.timestamps = false;
    settings.suppress_blank = false;
    settings.boosted = {3, 7, 12};
    settings.boost = 1.5F;
    auto row = zeros();
    apply_logit_filters(row, std::vector<int32_t>{10}, settings);
    EXPECT_EQ(row[3], -std::numeric_limits<float>::infinity());
    EXPECT_FLOAT_EQ(row[7], 1.5F);
    EXPECT_FLOAT_EQ(row[12], 1.5F);
    EXPECT_FLOAT_EQ(row[8], 0.0F);
}

// Greedy decoding through the filters on a scripted model whose raw preferences break every
// rule: it wants text first, a late first timestamp, a suppressed id, and unpaired timestamps.
class FilteredGreedy : public ::testing::Test {
protected:
    static WindowSetup setup() {
        WindowSetup s;
        s.initial_tokens = {kSot, 43};
        s.sot_index = 0;
        s.eot = kEot;
        s.nospeech = kNoSpeech;
        s.filters.ids = ids();
        s.filters.suppress = {9, kSot, kNoSpeech};
        s.filters.max_initial_timestamp_index = 3;
        return s;
    }
    // The preferred token per sampled step; timestamps rise with their index so that the latest
    // allowed one wins, and the preferred token gets +10.
    static std::vector<float> script(std::span<const int32_t> history,
                                     const std::vector<int32_t>& wants) {
        std::vector<float> row(kVocab, 0.0F);
        for (int32_t t = kTs; t < kVocab; ++t) row[static_cast<size_t>(t)] = 0.01F * float(t - kTs);
        row[20] = 0.5F;  // the text fallback
        const size_t step = history.size() - 2;
        if (step < wants.size())
            row[static_cast<size_t>(wants[step])] += 10.0F;
        else
            row[kEot] += 10.0F;
        return row;
    }
    SearchResult run(const std::vector<int32_t>& wants) {
        earshot::test::ScriptedDecoderModel model(
            kVocab, 448, [&](std::span<const int32_t> h) { return script(h, wants); });
        model.listen({});
        std::mt19937_64 rng(0);
        return sample_window(model, setup(), 0.0, 1, rng);
    }
};

TEST_F(FilteredGreedy, RulesShapeTheScriptedPreferences) {
    // wants: text 12 first (-> latest allowed first timestamp 48), suppressed 9 (-> 20), then
    // text 13, a timestamp below the first (50 is fine, 46 is not), then text right after a
    // closing timestamp (-> a timestamp >= it), then EOT.
    const SearchResult r = run({12, 9, 13, 46, 50, 14});
    ASSERT_EQ(r.candidates.size(), 1U);
    // 12 -> 48 (first: timestamp <= 0.06 s); 9 -> 20 (suppressed); 13; 46 -> 59 (monotonic: the
    // latest rising timestamp wins); 50 after a closing timestamp cannot be below 59 -> 59;
    // 14 after the pair -> 14; then EOT ends.
    EXPECT_EQ(r.candidates[0].tokens, (std::vector<int32_t>{48, 20, 13, 59, 59, 14}));
}

TEST_F(FilteredGreedy, EotEndsAndIsNotFed) {
    const std::vector<int32_t> wants{12, 13, kEot, 14};
    earshot::test::ScriptedDecoderModel model(
        kVocab, 448, [&](std::span<const int32_t> h) { return script(h, wants); });
    model.listen({});
    std::mt19937_64 rng(0);
    const SearchResult r = sample_window(model, setup(), 0.0, 1, rng);
    EXPECT_EQ(r.candidates[0].tokens, (std::vector<int32_t>{48, 13}));
    // fed: SOT by prefill, 43, 48, 13 by step; EOT never
    EXPECT_EQ(model.histories()[0], (std::vector<int32_t>{kSot, 43, 48, 13}));
}

TEST_F(FilteredGreedy, BlankAndEotAllowedAfterTheFirstStep) {
    auto s = setup();
    s.filters.timestamps = false;
    const std::vector<int32_t> wants{5, 5};
    earshot::test::ScriptedDecoderModel model(
        kVocab, 448, [&](std::span<const int32_t> h) { return script(h, wants); });
    model.listen({});
    std::mt19937_64 rng(0);
    const SearchResult r = sample_window(model, s, 0.0, 1, rng);
    // step 0: blank forbidden -> text fallback 20; step 1: blank allowed; then EOT allowed
    EXPECT_EQ(r.candidates[0].tokens, (std::vector<int32_t>{20, 5}));
}

}  // namespace
