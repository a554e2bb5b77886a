// Token search on a scripted model (reference §5.3, §5.7): no_speech_prob at SOT, greedy and
// sampled logprobs, the stopping rules, best-of ranking, beam search (known best path, patience)
// and beam size 1 against greedy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "earshot/engine/decoding/beam_search.h"
#include "earshot/engine/decoding/sampling_search.h"
#include "earshot/engine/decoding/window_search.h"
#include "scripted_decoder_model.h"

namespace {

using namespace earshot::decoding;
using earshot::test::ScriptedDecoderModel;

// text 0..39, EOT 40, SOT 41, nospeech 42, notimestamps 44, timestamps 45..59
constexpr int64_t kVocab = 60;
constexpr int32_t kEot = 40, kSot = 41, kNoSpeech = 42, kTs = 45;
constexpr float kInf = std::numeric_limits<float>::infinity();

WindowSetup plain_setup() {
    WindowSetup s;
    s.initial_tokens = {kSot, 43};
    s.sot_index = 0;
    s.eot = kEot;
    s.nospeech = kNoSpeech;
    s.filters.ids = {.blank = 5, .eot = kEot, .no_timestamps = 44, .timestamp_begin = kTs};
    s.filters.suppress_blank = false;
    s.filters.timestamps = false;
    return s;
}

// A row that allows only the given tokens, with the given probabilities (exact logprobs).
std::vector<float> probs(std::initializer_list<std::pair<int32_t, double>> entries) {
    std::vector<float> row(kVocab, -kInf);
    for (auto [token, p] : entries) row[static_cast<size_t>(token)] = float(std::log(p));
    return row;
}

std::vector<int32_t> sampled_part(std::span<const int32_t> history) {
    if (history.size() <= 2) return {};  // the first pass (prefill through SOT, then 43)
    return {history.begin() + 2, history.end()};
}

TEST(DecodingSearch, NoSpeechProbIsReadAtSotWithAPrompt) {
    // [<|startofprev|>(43), 7, 8, SOT, 43]: prefill covers 43 7 8 SOT; at SOT every logit is 0
    // but nospeech's ln 59, so P(nospeech) = 59 / (59 + 59) = 0.5.
    WindowSetup s = plain_setup();
    s.initial_tokens = {43, 7, 8, kSot, 43};
    s.sot_index = 3;
    ScriptedDecoderModel model(kVocab, 448, [](std::span<const int32_t> h) {
        std::vector<float> row(kVocab, 0.0F);
        if (h.back() == kSot)
            row[kNoSpeech] = float(std::log(59.0));
        else
            row[kEot] = 50.0F;
        return row;
    });
    model.listen({});
    std::mt19937_64 rng(0);
    const SearchResult r = sample_window(model, s, 0.0, 1, rng);
    EXPECT_NEAR(r.no_speech_prob, 0.5, 1e-6);
    EXPECT_EQ(model.prefills, 1);
    EXPECT_EQ(model.steps, 1);  // the token after SOT; EOT is not fed
    EXPECT_TRUE(r.candidates[0].tokens.empty());
}

TEST(DecodingSearch, GreedyLogprobsIncludeEot) {
    // step 0: 10 and 11 at 1/2 each (argmax takes 10); step 1: EOT certain.
    ScriptedDecoderModel model(kVocab, 448, [](std::span<const int32_t> h) {
        return h.size() == 2 ? probs({{10, 0.5}, {11, 0.5}}) : probs({{kEot, 1.0}});
    });
    model.listen({});
    std::mt19937_64 rng(0);
    const SearchResult r = sample_window(model, plain_setup(), 0.0, 1, rng);
    ASSERT_EQ(r.candidates.size(), 1U);
    EXPECT_EQ(r.candidates[0].tokens, (std::vector<int32_t>{10}));
    EXPECT_NEAR(r.candidates[0].sum_logprob, std::log(0.5), 1e-6);
    EXPECT_NEAR(average_logprob(r.candidates[0]), std::log(0.5) / 2.0, 1e-6);
    // Each sampled token's own log-probability; EOT's is in the sum only.
    ASSERT_EQ(r.candidates[0].token_logprobs.size(), 1U);
    EXPECT_NEAR(r.candidates[0].token_logprobs[0], std::log(0.5), 1e-6);
}

TEST(DecodingSearch, SamplingFollowsTheTemperatureAndScoresUnscaled) {
    // P(10) = 1/4, P(11) = 3/4 unscaled; at T = 0.5 the draw is softmax(logits / 0.5), so
    // P(11) = 9 / 10. The logprob added is the unscaled one: ln 1/4 or ln 3/4.
    ScriptedDecoderModel model(kVocab, 448, [](std::span<const int32_t> h) {
        return h.size() == 2 ? probs({{10, 0.25}, {11, 0.75}}) : probs({{kEot, 1.0}});
    });
    model.listen({});
    std::mt19937_64 rng(7);
    const SearchResult r = sample_window(model, plain_setup(), 0.5, 2000, rng);
    ASSERT_EQ(r.candidates.size(), 2000U);
    int elevens = 0;
    for (const auto& c : r.candidates) {
        ASSERT_EQ(c.tokens.size(), 1U);
        const bool eleven = c.tokens[0] == 11;
        elevens += eleven ? 1 : 0;
        EXPECT_NEAR(c.sum_logprob, std::log(eleven ? 0.75 : 0.25), 1e-6);
    }
    // binomial(2000, 0.9): mean 1800, sd 13.4
    EXPECT_GT(elevens, 1740);
    EXPECT_LT(elevens, 1860);
}

TEST(DecodingSearch, StopsAtSampleLenAndAtMaxTokens) {
    auto never_ends = [](std::span<const int32_t> h) {
        std::vector<float> row(kVocab, 0.0F);
        row[kEot] = -kInf;
        row[static_cast<size_t>(h.size() % 30)] = 5.0F;
        return row;
    };
    {
        WindowSetup s = plain_setup();
        s.sample_len = 3;
        ScriptedDecoderModel model(kVocab, 448, never_ends);
        model.listen({});
        std::mt19937_64 rng(0);
        const SearchResult r = sample_window(model, s, 0.0, 1, rng);
        EXPECT_EQ(r.candidates[0].tokens, (std::vector<int32_t>{2, 3, 4}));
    }
    {
        // max_tokens 6: sampled tokens sit at positions 2..6; the one at 6 is kept, not fed.
        ScriptedDecoderModel model(kVocab, 6, never_ends);
        model.listen({});
        std::mt19937_64 rng(0);
        const SearchResult r = sample_window(model, plain_setup(), 0.0, 1, rng);
        EXPECT_EQ(r.candidates[0].tokens, (std::vector<int32_t>{2, 3, 4, 5, 6}));
        EXPECT_EQ(model.histories()[0].size(), 6U);
    }
}

TEST(DecodingSearch, BestCandidateDividesByLength) {
    const std::vector<Candidate> c{
        {{1, 2}, -1.0, {}}, {{1}, -0.4, {}}, {{}, 0.0, {}}, {{3}, -0.4, {}}};
    EXPECT_EQ(best_candidate(c), 1U);  // -0.5, -0.4, -inf (empty), -0.4 (a later tie)
    const std::vector<Candidate> only_empty{{{}, -2.0, {}}};
    EXPECT_EQ(best_candidate(only_empty), 0U);
}

TEST(DecodingSearch, BestOfRowsSampleIndependentlyAndTheBestWins) {
    // Each row draws 10 (then EOT: score ln .5 / 1) or 11; after 11 it draws 12 (then EOT:
    // ln .25 / 2 = ln .5 per token) or EOT (ln .25 / 1, the worst).
    ScriptedDecoderModel model(kVocab, 448, [](std::span<const int32_t> h) {
        if (h.size() == 2) return probs({{10, 0.5}, {11, 0.5}});
        if (h.back() == 11) return probs({{12, 0.5}, {kEot, 0.5}});
        return probs({{kEot, 1.0}});
    });
    model.listen({});
    std::mt19937_64 rng(3);
    const SearchResult r = sample_window(model, plain_setup(), 1.0, 8, rng);
    ASSERT_EQ(r.candidates.size(), 8U);
    EXPECT_EQ(model.rows(), 8);
    size_t first_good = r.candidates.size();
    int short_elevens = 0;
    for (size_t i = 0; i < r.candidates.size(); ++i) {
        const auto& c = r.candidates[i];
        const bool short_eleven = c.tokens == std::vector<int32_t>{11};
        short_elevens += short_eleven ? 1 : 0;
        EXPECT_NEAR(c.sum_logprob, std::log(c.tokens == std::vector<int32_t>{10} ? 0.5 : 0.25),
                    1e-6);
        if (!short_eleven && first_good == r.candidates.size()) first_good = i;
    }
    ASSERT_GT(short_elevens, 0) << "seed 3 should draw at least one [11] row";
    ASSERT_LT(first_good, r.candidates.size());
    EXPECT_EQ(best_candidate(r.candidates), first_good);
}

// root: A .55, B .45; A -> C .35, D .35, EOT .3; B -> C .95, EOT .05; then EOT.
// Greedy: A C (score (ln .55 + ln .35) / 2 = -0.824); the best path is B C (-0.425).
std::vector<float> two_paths(std::span<const int32_t> history) {
    const auto s = sampled_part(history);
    if (s.empty()) return probs({{1, 0.55}, {2, 0.45}});
    if (s.size() == 1 && s[0] == 1) return probs({{3, 0.35}, {4, 0.35}, {kEot, 0.3}});
    if (s.size() == 1 && s[0] == 2) return probs({{3, 0.95}, {kEot, 0.05}});
    return probs({{kEot, 1.0}});
}

TEST(DecodingSearch, BeamSearchFindsTheBetterPath) {
    std::mt19937_64 rng(0);
    ScriptedDecoderModel greedy_model(kVocab, 448, two_paths);
    greedy_model.listen({});
    const SearchResult greedy = sample_window(greedy_model, plain_setup(), 0.0, 1, rng);
    EXPECT_EQ(greedy.candidates[0].tokens, (std::vector<int32_t>{1, 3}));
    ASSERT_EQ(greedy.candidates[0].token_logprobs.size(), 2U);
    EXPECT_NEAR(greedy.candidates[0].token_logprobs[0], std::log(0.55), 1e-6);
    EXPECT_NEAR(greedy.candidates[0].token_logprobs[1], std::log(0.35), 1e-6);

    ScriptedDecoderModel model(kVocab, 448, two_paths);
    model.listen({});
    const SearchResult beam = beam_search_window(model, plain_setup(), 2, 1.0);
    ASSERT_EQ(beam.candidates.size(), 2U);  // B C and A C finished, in that order
    EXPECT_EQ(beam.candidates[0].tokens, (std::vector<int32_t>{2, 3}));
    EXPECT_NEAR(beam.candidates[0].sum_logprob, std::log(0.45 * 0.95), 1e-6);
    // Each token's own log-probability along its beam (EOT's not among them).
    ASSERT_EQ(beam.candidates[0].token_logprobs.size(), 2U);
    EXPECT_NEAR(beam.candidates[0].token_logprobs[0], std::log(0.45), 1e-6);
    EXPECT_NEAR(beam.candidates[0].token_logprobs[1], std::log(0.95), 1e-6);
    EXPECT_EQ(beam.candidates[1].tokens, (std::vector<int32_t>{1, 3}));
    ASSERT_EQ(beam.candidates[1].token_logprobs.size(), 2U);
    EXPECT_NEAR(beam.candidates[1].token_logprobs[0], std::log(0.55), 1e-6);
    EXPECT_NEAR(beam.candidates[1].token_logprobs[1], std::log(0.35), 1e-6);
    EXPECT_EQ(beam.candidates[best_candidate(beam.candidates)].tokens,
              (std::vector<int32_t>{2, 3}));
    EXPECT_GE(model.reorders, 1);
}

TEST(DecodingSearch, BeamBookkeepingAndPatience) {
    // vocab 4, EOT 3. Step 0 (two identical beams): [.1 .3 .2 .4] -> [] finished (.4), live [1]
    // and [2]. Step 1: [1] -> 0 .5, 3 .3, 1 .1; [2] -> 3 .7, 0 .1, 1 .1. Sorted: [1 0] .15 live,
    // [2] .14 finished, [1] .09 finished, [1 1] .03 live.
    auto lp = [](std::initializer_list<double> p) {
        std::vector<double> out;
        for (double v : p) out.push_back(std::log(v));
        return out;
    };
    auto run = [&](double patience) {
        BeamSearch search(2, patience, 3);
        std::vector<double> step0 = lp({0.1, 0.3, 0.2, 0.4});
        step0.insert(step0.end(), step0.begin(), step0.end());
        search.update(step0, 4);
        EXPECT_EQ(search.finished().size(), 1U);
        EXPECT_FALSE(search.completed());
        std::vector<double> step1 = lp({0.5, 0.1, 0.1, 0.3});
        const auto row1 = lp({0.1, 0.1, 0.1, 0.7});
        step1.insert(step1.end(), row1.begin(), row1.end());
        const auto sources = search.update(step1, 4);
        EXPECT_EQ(sources, (std::vector<int64_t>{0, 0}));
        EXPECT_EQ(search.live()[0].tokens, (std::vector<int32_t>{1, 0}));
        EXPECT_EQ(search.live()[1].tokens, (std::vector<int32_t>{1, 1}));
        EXPECT_NEAR(search.live()[1].sum_logprob, std::log(0.03), 1e-9);
        return search;
    };
    const BeamSearch patient = run(1.5);  // max_candidates round(3.0) = 3
    EXPECT_EQ(patient.max_candidates(), 3);
    ASSERT_EQ(patient.finished().size(), 3U);
    EXPECT_TRUE(patient.completed());
    EXPECT_TRUE(patient.finished()[0].tokens.empty());
    EXPECT_EQ(patient.finished()[1].tokens, (std::vector<int32_t>{2}));
    EXPECT_EQ(patient.finished()[2].tokens, (std::vector<int32_t>{1}));
    EXPECT_NEAR(patient.finished()[2].sum_logprob, std::log(0.09), 1e-9);
    const auto all = patient.finalize();
    EXPECT_EQ(all[best_candidate(all)].tokens, (std::vector<int32_t>{2}));

    const BeamSearch plain = run(1.0);  // max 2: [1] never enters the pool
    EXPECT_EQ(plain.finished().size(), 2U);
    EXPECT_EQ(BeamSearch(2, 1.25, 3).max_candidates(), 2);  // round(2.5) -> 2, half to even
    EXPECT_EQ(BeamSearch(3, 1.5, 3).max_candidates(), 4);   // round(4.5) -> 4
    EXPECT_THROW(BeamSearch(2, 0.0, 3), std::invalid_argument);
}

TEST(DecodingSearch, FinalizeFillsFromLiveBeams) {
    BeamSearch search(2, 1.0, 3);
    std::vector<double> step0(8, std::log(0.25));
    search.update(step0, 4);  // all tied: ids 0, 1, 2 offered, EOT (3) is not
    EXPECT_TRUE(search.finished().empty());
    const auto done = search.finalize();
    ASSERT_EQ(done.size(), 2U);
    EXPECT_EQ(done[0].tokens, (std::vector<int32_t>{0}));
    EXPECT_EQ(done[1].tokens, (std::vector<int32_t>{1}));
}

// Pseudo-random logits from the history (a 64-bit hash), with timestamp rules on: beam size 1
// must reproduce greedy token for token.
std::vector<float> hashed(std::span<const int32_t> history, uint64_t salt) {
    uint64_t h = uint64_t{0xcbf29ce484222325} ^ salt;
    for (int32_t t : history)
        h = (h ^ uint64_t{static_cast<uint32_t>(t)}) * uint64_t{0x100000001b3};
    std::mt19937_64 gen(h);
    std::vector<float> row(kVocab);
    for (auto& v : row) v = float(double(gen() >> 11) * 0x1.0p-53 * 6.0 - 3.0);
    row[kEot] += 0.4F * float(history.size());
    return row;
}

TEST(DecodingSearch, BeamSizeOneEqualsGreedy) {
    for (uint64_t salt = 0; salt < 20; ++salt) {
        WindowSetup s = plain_setup();
        s.filters.timestamps = true;
        s.filters.suppress_blank = true;
        s.filters.suppress = {9, kSot};
        s.filters.max_initial_timestamp_index = 3;
        auto script = [salt](std::span<const int32_t> h) { return hashed(h, salt); };
        ScriptedDecoderModel a(kVocab, 448, script), b(kVocab, 448, script);
        a.listen({});
        b.listen({});
        std::mt19937_64 rng(0);
        const SearchResult greedy = sample_window(a, s, 0.0, 1, rng);
        const SearchResult beam = beam_search_window(b, s, 1, 1.0);
        const auto& g = greedy.candidates[0];
        const auto& bb = beam.candidates[best_candidate(beam.candidates)];
        EXPECT_EQ(bb.tokens, g.tokens) << "salt " << salt;
        EXPECT_NEAR(bb.sum_logprob, g.sum_logprob, 1e-9) << "salt " << salt;
        EXPECT_FALSE(g.tokens.empty());
    }
}

}  // namespace
