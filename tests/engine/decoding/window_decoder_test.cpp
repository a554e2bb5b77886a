// One window through the real tokenizer and a scripted model (reference §5.1, §5.2, §5.4, §5.9):
// initial tokens, the suppress set, language detection over language tokens only, and the
// temperature fallback on repetitive text, on low logprob, and not on likely silence.
#include "earshot/engine/decoding/window_decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "earshot/engine/tokenizer/tokenizer.h"
#include "scripted_decoder_model.h"

namespace {

using namespace earshot::decoding;
using earshot::backend::HostTensor;
using earshot::test::ScriptedDecoderModel;
using earshot::tokenizer::Tokenizer;

namespace fs = std::filesystem;
constexpr float kInf = std::numeric_limits<float>::infinity();

std::optional<Tokenizer> load_assets(const char* name) {
    const fs::path path = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / name;
    if (!fs::exists(path)) return std::nullopt;
    return Tokenizer::load(path);
}

#define REQUIRE_TOKENIZER(var, name)                        \
    const std::optional<Tokenizer> var = load_assets(name); \
    if (!var) GTEST_SKIP() << "whisper-assets/" name " not found under EARSHOT_SHARED_DIR"

TEST(DecodingWindow, InitialTokensAndSuppressSet) {
    REQUIRE_TOKENIZER(tok, "multilingual.tiktoken");
    const auto& sp = tok->specials();
    DecodingOptions options;
    options.timestamps = false;
    std::vector<int32_t> prompt(300);
    for (int32_t i = 0; i < 300; ++i) prompt[static_cast<size_t>(i)] = i;
    const int32_t de = tok->language_token("de");
    const WindowSetup s = make_window_setup(*tok, options, de, prompt, "  hello ", 448);

    const std::vector<int32_t> hello = tok->encode(" hello");
    ASSERT_EQ(s.initial_tokens.size(), 1 + 223 + 4 + hello.size());
    EXPECT_EQ(s.initial_tokens[0], 50361);  // <|startofprev|>
    EXPECT_EQ(s.initial_tokens[1], 77);     // the last 223 of 0..299
    EXPECT_EQ(s.initial_tokens[223], 299);
    EXPECT_EQ(s.sot_index, 224U);
    EXPECT_EQ(s.initial_tokens[224], 50258);  // SOT
    EXPECT_EQ(s.initial_tokens[225], 50261);  // <|de|>
    EXPECT_EQ(s.initial_tokens[226], 50359);  // <|transcribe|>
    EXPECT_EQ(s.initial_tokens[227], 50363);  // <|notimestamps|>
    EXPECT_EQ(std::vector<int32_t>(s.initial_tokens.begin() + 228, s.initial_tokens.end()), hello);
    EXPECT_EQ(s.sample_len, 224);
    EXPECT_EQ(s.filters.ids.blank, 220);
    EXPECT_EQ(s.filters.ids.eot, sp.eot);
    EXPECT_EQ(s.filters.max_initial_timestamp_index, 50);

    // "-1": the 82 non-speech ids + SOT, translate, transcribe, startoflm, startofprev, nospeech
    // = the 88-entry list of the hub's generation_config.json (reference §5.2).
    ASSERT_EQ(s.filters.suppress.size(), 88U);
    EXPECT_EQ(std::vector<int32_t>(s.filters.suppress.begin(), s.filters.suppress.begin() + 8),
              (std::vector<int32_t>{1, 2, 7, 8, 9, 10, 14, 25}));
    EXPECT_EQ(std::vector<int32_t>(s.filters.suppress.end() - 7, s.filters.suppress.end()),
              (std::vector<int32_t>{50254, 50258, 50358, 50359, 50360, 50361, 50362}));

    options.task = Task::translate;
    options.timestamps = true;
    const WindowSetup t = make_window_setup(*tok, options, de, {}, "", 448);
    EXPECT_EQ(t.initial_tokens, (std::vector<int32_t>{50258, 50261, 50358}));
    EXPECT_EQ(t.sot_index, 0U);
}

// A custom vocabulary opens the prompt and stays when the previous text is cut to fit; its first
// tokens get the bias.
TEST(DecodingWindow, VocabularyLeadsThePromptAndKeepsItsPlace) {
    REQUIRE_TOKENIZER(tok, "gpt2.tiktoken");
    DecodingOptions options;
    options.vocabulary_tokens = {1000, 1001, 1002};
    options.vocabulary_first_tokens = {1000, 1002};
    options.vocabulary_logit_bias = 2.5;
    std::vector<int32_t> prompt(300);
    for (int32_t i = 0; i < 300; ++i) prompt[static_cast<size_t>(i)] = i;
    const WindowSetup s = make_window_setup(*tok, options, -1, prompt, "", 448);
    ASSERT_EQ(s.initial_tokens.size(), 1 + 223 + 1U);
    EXPECT_EQ(s.initial_tokens[0], 50360);  // <|startofprev|> (English-only)
    EXPECT_EQ(std::vector<int32_t>(s.initial_tokens.begin() + 1, s.initial_tokens.begin() + 4),
              (std::vector<int32_t>{1000, 1001, 1002}));
    EXPECT_EQ(s.initial_tokens[4], 80);  // the last 220 of 0..299
    EXPECT_EQ(s.initial_tokens[223], 299);
    EXPECT_EQ(s.initial_tokens[224], 50257);  // SOT
    EXPECT_EQ(s.filters.boosted, (std::vector<int32_t>{1000, 1002}));
    EXPECT_FLOAT_EQ(s.filters.boost, 2.5F);

    // No previous text: the vocabulary alone after <|startofprev|>.
    const WindowSetup alone = make_window_setup(*tok, options, -1, {}, "", 448);
    EXPECT_EQ(alone.initial_tokens, (std::vector<int32_t>{50360, 1000, 1001, 1002, 50257}));
}

TEST(DecodingWindow, EnglishOnlySotSequence) {
    REQUIRE_TOKENIZER(tok, "gpt2.tiktoken");
    const DecodingOptions options;
    const WindowSetup s = make_window_setup(*tok, options, -1, {}, "", 448);
    EXPECT_EQ(s.initial_tokens, (std::vector<int32_t>{50257}));
    EXPECT_EQ(s.filters.suppress.size(), 90U);  // 84 + 6 specials
    EXPECT_EQ(s.filters.suppress.back(), 50361);
}

// A multilingual scripted model: at [SOT] the language logits favour <|de|> (10) over <|fr|>
// (9) while a text token (100) sits higher still; nospeech gets `nospeech_logit`. After the four
// initial tokens (SOT, de, transcribe, notimestamps) the row allows only `path[i]`, then EOT.
struct Scenario {
    std::vector<int32_t> first_path;  // on the first listen
    std::vector<int32_t> later_path;  // on every later listen
    int width = 1;                    // allowed tokens per step (equal logits, path[i] first)
    double nospeech_logit = -kInf;
};

class ScenarioModel {
public:
    ScenarioModel(const Tokenizer& tok, Scenario scenario)
        : tok_(tok),
          scenario_(std::move(scenario)),
          model_(tok.n_vocab(), 448, [this](std::span<const int32_t> h) { return row(h); }) {}
    ScriptedDecoderModel& model() { return model_; }

private:
    std::vector<float> row(std::span<const int32_t> h) const {
        const auto& sp = tok_.specials();
        std::vector<float> out(static_cast<size_t>(tok_.n_vocab()), -kInf);
        if (h.size() == 1) {
            out[100] = 20.0F;
            out[static_cast<size_t>(tok_.language_token("de"))] = 10.0F;
            out[static_cast<size_t>(tok_.language_token("fr"))] = 9.0F;
            out[static_cast<size_t>(sp.nospeech)] = float(scenario_.nospeech_logit);
            return out;
        }
        if (h.size() < 4) {
            out[static_cast<size_t>(sp.eot)] = 0.0F;  // not sampled from: more initial tokens
            return out;
        }
        const auto& path = model_.listens <= 1 ? scenario_.first_path : scenario_.later_path;
        const size_t i = h.size() - 4;
        if (i < path.size()) {
            for (int k = 0; k < scenario_.width; ++k) out[static_cast<size_t>(path[i] + k)] = 0.0F;
        } else {
            out[static_cast<size_t>(sp.eot)] = 0.0F;
        }
        return out;
    }

    const Tokenizer& tok_;
    Scenario scenario_;
    ScriptedDecoderModel model_;
};

const HostTensor& window_mel() {
    static const HostTensor mel = HostTensor::f32({1, 80, 3000});
    return mel;
}

DecodingOptions plain_options() {
    DecodingOptions options;
    options.timestamps = false;
    return options;
}

TEST(DecodingWindow, DetectLanguageLooksAtLanguageTokensOnly) {
    REQUIRE_TOKENIZER(tok, "multilingual.tiktoken");
    ScenarioModel scenario(*tok, {});
    const LanguageGuess guess = detect_language(scenario.model(), *tok, {});
    EXPECT_EQ(guess.code, "de");
    EXPECT_EQ(guess.token, 50261);
    ASSERT_EQ(guess.probabilities.size(), 99U);
    EXPECT_EQ(guess.probabilities[0].first, "de");
    EXPECT_NEAR(guess.probabilities[0].second, 1.0 / (1.0 + std::exp(-1.0)), 1e-6);  // 0.7311
    EXPECT_EQ(guess.probabilities[1].first, "fr");
    EXPECT_NEAR(guess.probabilities[1].second, 1.0 / (1.0 + std::exp(1.0)), 1e-6);
    EXPECT_EQ(guess.probabilities[2].second, 0.0);
}

TEST(DecodingWindow, RepetitiveTextFallsBackToTheNextTemperature) {
    REQUIRE_TOKENIZER(tok, "multilingual.tiktoken");
    const std::vector<int32_t> the = tok->encode(" the");
    ASSERT_EQ(the.size(), 1U);
    Scenario sc;
    sc.first_path.assign(30, the[0]);
    sc.later_path = tok->encode(" Hello world.");
    ScenarioModel scenario(*tok, sc);
    std::mt19937_64 rng(0);
    const WindowResult r =
        decode_with_fallback(scenario.model(), *tok, window_mel(), {}, {}, plain_options(), rng);
    EXPECT_EQ(r.temperature, 0.2);
    EXPECT_EQ(r.text, " Hello world.");
    EXPECT_EQ(r.tokens, sc.later_path);
    EXPECT_EQ(r.language, "de");
    EXPECT_DOUBLE_EQ(r.avg_logprob, 0.0);
    EXPECT_LT(r.compression_ratio, 2.4);
    EXPECT_EQ(scenario.model().listens, 2);
    EXPECT_EQ(scenario.model().prefills, 3);  // detection once, then one first pass per window

    // The rejected T = 0 result, alone: " the" x 30 compresses 119 / 15 > 2.4.
    ScenarioModel again(*tok, sc);
    std::mt19937_64 rng2(0);
    const WindowResult first =
        decode_window(again.model(), *tok, window_mel(), {}, {}, plain_options(), 0.0, rng2);
    EXPECT_EQ(first.text.size(), 120U);
    EXPECT_GT(first.compression_ratio, 2.4);
    EXPECT_TRUE(needs_fallback(first, plain_options()));
}

TEST(DecodingWindow, LowLogprobFallsBackUnlessNoSpeechIsLikely) {
    REQUIRE_TOKENIZER(tok, "multilingual.tiktoken");
    // Two steps with five equally likely tokens (greedy takes the first) then EOT:
    // avg_logprob = 2 ln(1/5) / 3 = -1.073 < -1.
    Scenario sc;
    sc.first_path = {1000, 1000};
    sc.later_path = sc.first_path;
    sc.width = 5;
    const double low_avg = 2.0 * std::log(0.2) / 3.0;
    {
        ScenarioModel scenario(*tok, sc);  // nospeech -inf: P = 0
        std::mt19937_64 rng(0);
        const WindowResult r = decode_with_fallback(scenario.model(), *tok, window_mel(), {}, {},
                                                    plain_options(), rng);
        EXPECT_EQ(r.temperature, 1.0);  // every temperature fell back; the last is kept
        EXPECT_NEAR(r.avg_logprob, low_avg, 1e-6);
        EXPECT_EQ(r.no_speech_prob, 0.0);
        EXPECT_EQ(scenario.model().listens, 6);
    }
    {
        // P(nospeech) at SOT = 0.9: e^x = 9 (e^20 + e^10 + e^9).
        sc.nospeech_logit =
            std::log(9.0) + std::log(std::exp(20.0) + std::exp(10.0) + std::exp(9.0));
        ScenarioModel scenario(*tok, sc);
        std::mt19937_64 rng(0);
        DecodingOptions options = plain_options();
        options.beam_size = 1;
        const WindowResult r =
            decode_with_fallback(scenario.model(), *tok, window_mel(), {}, {}, options, rng);
        EXPECT_EQ(r.temperature, 0.0);  // accepted as silence
        EXPECT_NEAR(r.no_speech_prob, 0.9, 1e-5);
        EXPECT_NEAR(r.avg_logprob, low_avg, 1e-6);
        EXPECT_EQ(r.tokens, (std::vector<int32_t>{1000, 1000}));
        EXPECT_EQ(scenario.model().listens, 1);
    }
}

TEST(DecodingWindow, RejectsBadInput) {
    REQUIRE_TOKENIZER(tok, "multilingual.tiktoken");
    ScenarioModel scenario(*tok, {});
    std::mt19937_64 rng(0);
    DecodingOptions options = plain_options();
    options.language = "xx";
    EXPECT_THROW(decode_window(scenario.model(), *tok, window_mel(), {}, {}, options, 0.0, rng),
                 std::invalid_argument);
    EXPECT_THROW(decode_window(scenario.model(), *tok, HostTensor::f32({1, 80, 10}), {}, {},
                               plain_options(), 0.0, rng),
                 std::invalid_argument);
}

}  // namespace
