// row_rules (token_choice.cpp), the filters written as id ranges for a backend that filters where
// its logits are, against apply_logit_filters on random sampled sequences: the ranges plus the
// shared suppressions and bias, with rule (e) applied by a double loop here, mask exactly the ids
// the host's filters mask, and leave every other logit as they do.
#include "earshot/engine/decoding/token_choice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "earshot/engine/decoding/logit_filters.h"

namespace {

using earshot::decoding::LogitFilterSettings;

constexpr int32_t kVocab = 300;
constexpr int32_t kBegin = 250;  // timestamps 250..299

std::vector<float> by_rules(std::vector<float> row, std::span<const int32_t> sampled,
                            const LogitFilterSettings& f) {
    for (int32_t id : f.boosted) row[static_cast<size_t>(id)] += f.boost;
    for (int32_t id : f.suppress) row[static_cast<size_t>(id)] = -INFINITY;
    const auto rules = earshot::decoding::row_rules(sampled, f);
    for (int32_t k = 0; k < rules.forbidden_count; ++k) {
        for (int32_t i = rules.forbidden[k].begin; i < std::min(rules.forbidden[k].end, kVocab);
             ++i) {
            row[static_cast<size_t>(i)] = -INFINITY;
        }
    }
    if (rules.timestamp_rule != 0) {
        constexpr double inf = std::numeric_limits<double>::infinity();
        const auto begin = static_cast<size_t>(kBegin);
        double peak = -inf;
        for (size_t i = begin; i < row.size(); ++i) peak = std::max(peak, double(row[i]));
        double sum = 0.0;
        for (size_t i = begin; i < row.size(); ++i) sum += std::exp(double(row[i]) - peak);
        const double mass = peak == -inf ? -inf : peak + std::log(sum);
        double text = -inf;
        for (size_t i = 0; i < begin; ++i) text = std::max(text, double(row[i]));
        if (mass > text) {
            for (size_t i = 0; i < begin; ++i) row[i] = -INFINITY;
        }
    }
    return row;
}

TEST(RowRules, MaskWhatTheHostFiltersMaskOnRandomSequences) {
    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.0F, 2.0F);
    std::uniform_int_distribution<int32_t> any(0, kVocab - 1);
    std::uniform_int_distribution<int> length(0, 6);
    int forced = 0;
    int masked_total = 0;
    for (int trial = 0; trial < 400; ++trial) {
        LogitFilterSettings f;
        f.ids = {.blank = 220, .eot = 200, .no_timestamps = 210, .timestamp_begin = kBegin};
        f.suppress = {1, 5, 201, 202};
        f.suppress_blank = trial % 3 != 0;
        f.timestamps = trial % 5 != 0;
        if (trial % 2 == 0) f.max_initial_timestamp_index = std::nullopt;
        f.boosted = {7, 9, 7};
        f.boost = trial % 4 == 0 ? 0.0F : 2.5F;
        std::vector<int32_t> sampled(static_cast<size_t>(length(random)));
        for (int32_t& t : sampled) t = any(random);
        std::vector<float> row(kVocab);
        for (float& v : row) v = normal(random);
        if (trial % 7 == 0) {
            for (size_t i = kBegin; i < row.size(); ++i) row[i] = 3.0F;
        }
        std::vector<float> want = row;
        earshot::decoding::apply_logit_filters(want, sampled, f);
        const std::vector<float> got = by_rules(row, sampled, f);
        ASSERT_EQ(got, want) << "trial " << trial;
        bool text_open = false;
        for (size_t i = 0; i < static_cast<size_t>(kBegin); ++i) {
            text_open = text_open || want[i] > -INFINITY;
        }
        forced += text_open ? 0 : 1;
        for (float v : want) masked_total += v == -INFINITY ? 1 : 0;
    }
    // The trials reach the rules: some rows lose every text token, and many ids are masked.
    EXPECT_GT(forced, 20);
    EXPECT_GT(masked_total, 400 * 4);
}

}  // namespace
