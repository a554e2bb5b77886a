// The token-choice kernel alone (kernels_choose_tokens.cu) against the host's filters and
// selection (logit_filters.cpp, token_choice.cpp) and double-precision loops: every branch of
// the timestamp rules, rule (e) forcing a timestamp and not, the vocabulary bias with an id
// listed twice, ties ranked lower id first, a row with every id suppressed. Runs on the emulated
// module here and on a GPU (*OnCudaDevice).
#include <limits>

#include "earshot/engine/decoding/token_choice.h"
#include "kernel_table_fixture.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests
using earshot::backend::RowChoice;
using earshot::backend::RowRules;
using earshot::decoding::LogitFilterSettings;

constexpr int32_t kVocab = 700;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int32_t kTimestampBegin = 600;  // ids 600..699 are timestamps

LogitFilterSettings test_filters() {
    LogitFilterSettings f;
    f.ids = {.blank = 220, .eot = 550, .no_timestamps = 560, .timestamp_begin = kTimestampBegin};
    f.suppress = {3, 17, 551, 552, 553};
    f.boosted = {30, 41, 30};  // 30 twice: boosted twice, as on the host
    f.boost = 1.25F;
    f.max_initial_timestamp_index = 20;
    return f;
}

// A row of logits rounded to quarters (so that many are equal), with its timestamps either
// together likelier than any text token (`timestamps_win`) or far below it.
std::vector<float> test_row(uint32_t seed, bool timestamps_win) {
    std::vector<float> row = random_values(kVocab, seed, 2.0F);
    for (float& v : row) v = std::round(v * 4.0F) / 4.0F;
    for (int32_t i = kTimestampBegin; i < kVocab; ++i) {
        row[static_cast<size_t>(i)] = timestamps_win ? 4.0F : -6.0F;
    }
    if (timestamps_win) row[100] = 6.0F;  // the best single token is text; 100 timestamps win
    return row;
}

class TokenChoiceOnCudaDevice : public KernelTableFixture {
protected:
    // The kernel on `rows` (concatenated [n, kVocab]) with each row's rules, `choices` per row.
    std::vector<RowChoice> choose(const std::vector<float>& rows,
                                  const std::vector<std::vector<int32_t>>& sampled,
                                  const LogitFilterSettings& filters, int32_t choices) {
        const size_t n = sampled.size();
        earshot::decoding::ChoiceSpec spec{.filters = &filters, .sampled = {}, .choices = choices};
        for (const auto& s : sampled) spec.sampled.emplace_back(s);
        const earshot::backend::ChoiceRequest request = earshot::decoding::choice_request(spec);
        std::vector<int32_t> lists = request.suppressed;
        lists.insert(lists.end(), request.boosted.begin(), request.boosted.end());
        const int32_t* on_device = device(lists);
        RowChoice* out = device<RowChoice>(n);
        k_->choose_tokens(device(rows), device<float>(rows.size()), I(n), kVocab, on_device,
                          I(request.suppressed.size()), on_device + request.suppressed.size(),
                          I(request.boosted.size()), request.boost, request.timestamp_begin,
                          device(request.rows), choices, out);
        return host(out, n);
    }
};

// What the sampled tokens reach: no token yet, text, a lone first timestamp, text then a
// timestamp, two timestamps, a timestamp then text, and a closed segment followed by text.
const std::vector<std::vector<int32_t>> kSampled = {
    {}, {100}, {610}, {100, 612}, {610, 615}, {610, 100}, {605, 100, 620, 622, 200}};

TEST_F(TokenChoiceOnCudaDevice, MatchesTheHostFiltersAndSelectionOnEveryTimestampRule) {
    const LogitFilterSettings filters = test_filters();
    for (const bool timestamps_win : {false, true}) {
        std::vector<float> rows;
        for (size_t r = 0; r < kSampled.size(); ++r) {
            const std::vector<float> row = test_row(static_cast<uint32_t>(r + 1), timestamps_win);
            rows.insert(rows.end(), row.begin(), row.end());
        }
        for (const int32_t choices : {1, 6}) {
            const std::vector<RowChoice> got = choose(rows, kSampled, filters, choices);
            int forced_rows = 0;
            for (size_t r = 0; r < kSampled.size(); ++r) {
                const std::span<const float> logits(rows.data() + r * kVocab, kVocab);
                const auto want =
                    earshot::decoding::choose_on_host(logits, kSampled[r], filters, choices);
                const std::string what = "row " + std::to_string(r) + ", " +
                                         std::to_string(choices) + " choices, timestamps " +
                                         (timestamps_win ? "win" : "lose");
                ASSERT_EQ(got[r].count, choices) << what;
                const auto choice = earshot::decoding::token_choice(got[r]);
                EXPECT_EQ(choice.tokens, want.tokens) << what;
                for (size_t k = 0; k < want.logprobs.size() && k < choice.logprobs.size(); ++k) {
                    EXPECT_NEAR(choice.logprobs[k], want.logprobs[k],
                                1e-12 * std::max(1.0, std::abs(want.logprobs[k])))
                        << what << ", choice " << k;
                }
                forced_rows += got[r].timestamp_forced;
            }
            // Rule (e) decides rows both ways: where timestamps lose it forces one only at the
            // first step (every text id forbidden there); where they win, in 5 of the 7 rows
            // (not where the pair rule forbids every timestamp).
            EXPECT_EQ(forced_rows, timestamps_win ? 5 : 1);
            EXPECT_EQ(got[0].timestamp_forced, 1);
        }
    }
}

// Rule (e)'s inputs and the normaliser against double loops over the row the other filters leave.
TEST_F(TokenChoiceOnCudaDevice, TimestampRuleAndNormaliserMatchDoubleLoops) {
    const LogitFilterSettings filters = test_filters();
    std::vector<float> rows;
    for (size_t r = 0; r < kSampled.size(); ++r) {
        const std::vector<float> row = test_row(static_cast<uint32_t>(r + 11), r % 2 == 0);
        rows.insert(rows.end(), row.begin(), row.end());
    }
    const std::vector<RowChoice> got = choose(rows, kSampled, filters, 1);
    for (size_t r = 0; r < kSampled.size(); ++r) {
        // The masked row by hand (the bias added in f32 as the filters add it), then widened.
        std::vector<float> masked(rows.begin() + static_cast<std::ptrdiff_t>(r * kVocab),
                                  rows.begin() + static_cast<std::ptrdiff_t>((r + 1) * kVocab));
        for (int32_t id : filters.boosted) masked[static_cast<size_t>(id)] += filters.boost;
        for (int32_t id : filters.suppress) masked[static_cast<size_t>(id)] = -INFINITY;
        const RowRules rules = earshot::decoding::row_rules(kSampled[r], filters);
        for (int32_t k = 0; k < rules.forbidden_count; ++k) {
            const int32_t end = std::min(rules.forbidden[k].end, kVocab);
            for (int32_t i = rules.forbidden[k].begin; i < end; ++i) {
                masked[static_cast<size_t>(i)] = -INFINITY;
            }
        }
        std::vector<double> w = widen(masked);
        const auto begin = static_cast<size_t>(kTimestampBegin);
        double best_text = -kInf;
        for (size_t i = 0; i < begin; ++i) best_text = std::max(best_text, w[i]);
        double peak = -kInf;
        for (size_t i = begin; i < w.size(); ++i) peak = std::max(peak, w[i]);
        double sum = 0.0;
        for (size_t i = begin; i < w.size(); ++i) sum += std::exp(w[i] - peak);
        const double mass = peak == -kInf ? -kInf : peak + std::log(sum);
        const std::string what = "row " + std::to_string(r);
        EXPECT_EQ(double(got[r].best_text_logit), best_text) << what;
        if (mass == -kInf) {
            EXPECT_EQ(got[r].timestamp_log_mass, mass) << what;
        } else {
            EXPECT_NEAR(got[r].timestamp_log_mass, mass, 1e-12 * std::abs(mass)) << what;
        }
        EXPECT_EQ(got[r].timestamp_forced, mass > best_text ? 1 : 0) << what;
        if (mass > best_text) {
            for (size_t i = 0; i < begin; ++i) w[i] = -kInf;
        }
        double top = -kInf;
        for (double v : w) top = std::max(top, v);
        double all = 0.0;
        for (double v : w) all += std::exp(v - top);
        const double log_norm = top + std::log(all);
        EXPECT_NEAR(got[r].log_norm, log_norm, 1e-12 * std::max(1.0, std::abs(log_norm))) << what;
    }
}

// Equal logits rank lower id first (std::max_element, the beam's sort), also among the -inf of
// a row whose every id is suppressed, whose normaliser is NaN (its log-probabilities NaN).
TEST_F(TokenChoiceOnCudaDevice, TiesRankTheLowerIdFirst) {
    LogitFilterSettings plain;
    plain.suppress_blank = false;
    plain.timestamps = false;
    std::vector<float> rows(kVocab, 0.5F);
    rows[400] = 2.0F;
    rows[650] = 2.0F;  // tied best: 400 first
    rows[90] = 1.0F;
    rows[10] = 1.0F;  // then 10, 90, then every other id from 0 up
    std::vector<float> none(kVocab, -INFINITY);
    rows.insert(rows.end(), none.begin(), none.end());
    const std::vector<RowChoice> got = choose(rows, {{}, {}}, plain, 5);
    EXPECT_EQ(earshot::decoding::token_choice(got[0]).tokens,
              (std::vector<int32_t>{400, 650, 10, 90, 0}));
    EXPECT_EQ(earshot::decoding::token_choice(got[1]).tokens,
              (std::vector<int32_t>{0, 1, 2, 3, 4}));
    EXPECT_TRUE(std::isnan(got[1].log_norm));
    const std::span<const float> first(rows.data(), kVocab);
    EXPECT_EQ(earshot::decoding::choose_on_host(first, {}, plain, 5).tokens,
              earshot::decoding::token_choice(got[0]).tokens);
    const std::vector<RowChoice> greedy = choose(rows, {{}, {}}, plain, 1);
    EXPECT_EQ(greedy[0].tokens[0], 400);
    EXPECT_EQ(greedy[1].tokens[0], 0);  // std::max_element of all -inf: the first
}

}  // namespace
