// Decoding on the real CPU model with random weights (multilingual layout, vocab 51865): the
// invariants Whisper's rules guarantee whatever the weights say — timestamps in pairs and never
// decreasing, suppressed ids never emitted, nothing after EOT — plus beam size 1 against greedy
// and language detection returning a language token.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "earshot/engine/decoding/beam_search.h"
#include "earshot/engine/decoding/sampling_search.h"
#include "earshot/engine/decoding/window_decoder.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "temp_dir.h"

namespace {

using namespace earshot::decoding;
using earshot::backend::HostTensor;
using earshot::tokenizer::Tokenizer;
namespace fs = std::filesystem;

class DecodingCpuModel : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const fs::path vocab =
            fs::path(EARSHOT_SHARED_DIR) / "whisper-assets/multilingual.tiktoken";
        if (!fs::exists(vocab)) return;
        tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::load(vocab));
        temp_ = std::make_unique<earshot::test::TempDir>("earshot-decoding-cpu");
        earshot::model::RandomCheckpointOptions options{.d = 64,
                                                        .heads = 4,
                                                        .enc_layers = 2,
                                                        .dec_layers = 2,
                                                        .vocab = 51865,
                                                        .frames = 3000,
                                                        .max_tokens = 448,
                                                        .dtype = "f32",
                                                        .seed = 11};
        earshot::model::write_random_checkpoint(temp_->path() / "model", options);
        checkpoint_ = std::make_unique<earshot::model::WhisperCheckpoint>(
            earshot::model::load_whisper_checkpoint(temp_->path() / "model"));
        std::vector<float> mel(80 * 3000);
        for (size_t i = 0; i < mel.size(); ++i) {
            mel[i] = 0.5F * float(std::sin(0.013 * double(i))) - 0.2F;
        }
        mel_ = std::make_unique<HostTensor>(HostTensor::f32({1, 80, 3000}, std::move(mel)));
    }
    static void TearDownTestSuite() {
        mel_.reset();
        checkpoint_.reset();
        temp_.reset();
        tokenizer_.reset();
    }
    void SetUp() override {
        if (!tokenizer_) {
            GTEST_SKIP() << "whisper-assets/multilingual.tiktoken not found under "
                            "EARSHOT_SHARED_DIR";
        }
        model_ = earshot::runtime::make_cpu_decoder_model(*checkpoint_);
    }

    static DecodingOptions options() {
        DecodingOptions o;
        o.language = "en";
        o.sample_len = 40;  // keeps the suite fast; random weights rarely pick EOT
        return o;
    }

    // Checks every rule the filters enforce on a finished token list.
    static void expect_whisper_rules(const std::vector<int32_t>& tokens, const WindowSetup& setup,
                                     int sample_len) {
        const auto& ids = setup.filters.ids;
        auto is_ts = [&](int32_t t) { return t >= ids.timestamp_begin; };
        ASSERT_FALSE(tokens.empty());
        EXPECT_LE(static_cast<int>(tokens.size()), sample_len);
        EXPECT_TRUE(is_ts(tokens[0])) << "first token " << tokens[0];
        EXPECT_LE(tokens[0], ids.timestamp_begin + 50) << "first timestamp after 1.00 s";
        int32_t last_ts = -1;
        for (size_t i = 0; i < tokens.size(); ++i) {
            const int32_t t = tokens[i];
            EXPECT_NE(t, ids.eot) << "EOT inside the result at " << i;
            EXPECT_NE(t, ids.no_timestamps);
            EXPECT_FALSE(
                std::binary_search(setup.filters.suppress.begin(), setup.filters.suppress.end(), t))
                << "suppressed id " << t << " at " << i;
            if (i >= 2) {  // never three timestamps in a row
                EXPECT_FALSE(is_ts(t) && is_ts(tokens[i - 1]) && is_ts(tokens[i - 2])) << i;
            }
            if (i >= 2 && !is_ts(tokens[i - 2]) && is_ts(tokens[i - 1])) {
                // after text + closing timestamp: a timestamp (or EOT) must follow
                EXPECT_TRUE(is_ts(t)) << "text right after a closing timestamp at " << i;
            }
            if (is_ts(t)) {
                const bool reopens = i >= 2 && is_ts(tokens[i - 1]) && !is_ts(tokens[i - 2]);
                if (reopens) {
                    EXPECT_GE(t, last_ts) << "timestamp decreases at " << i;
                } else {
                    EXPECT_GT(t, last_ts) << "timestamp does not increase at " << i;
                }
                last_ts = t;
            }
        }
    }

    WindowSetup setup_for(const DecodingOptions& o) const {
        return make_window_setup(*tokenizer_, o, tokenizer_->language_token(o.language), {}, "",
                                 model_->max_tokens());
    }

    static inline std::unique_ptr<Tokenizer> tokenizer_;
    static inline std::unique_ptr<earshot::test::TempDir> temp_;
    static inline std::unique_ptr<earshot::model::WhisperCheckpoint> checkpoint_;
    static inline std::unique_ptr<HostTensor> mel_;
    std::unique_ptr<DecoderModel> model_;
};

TEST_F(DecodingCpuModel, GreedyKeepsTheRules) {
    DecodingOptions o = options();
    o.beam_size = 1;
    std::mt19937_64 rng(0);
    const WindowResult r = decode_window(*model_, *tokenizer_, *mel_, {}, "", o, 0.0, rng);
    expect_whisper_rules(r.tokens, setup_for(o), o.sample_len);
    EXPECT_EQ(r.language, "en");
    EXPECT_LE(r.avg_logprob, 0.0);
    EXPECT_GE(r.no_speech_prob, 0.0);
    EXPECT_LE(r.no_speech_prob, 1.0);
    EXPECT_EQ(r.text, tokenizer_->decode_text(r.tokens));
}

TEST_F(DecodingCpuModel, BeamAndBestOfKeepTheRules) {
    DecodingOptions o = options();
    o.beam_size = 3;
    o.best_of = 3;
    o.sample_len = 24;
    std::mt19937_64 rng(5);
    const WindowResult beam = decode_window(*model_, *tokenizer_, *mel_, {}, "", o, 0.0, rng);
    expect_whisper_rules(beam.tokens, setup_for(o), o.sample_len);
    const WindowResult sampled = decode_window(*model_, *tokenizer_, *mel_, {}, "", o, 0.7, rng);
    expect_whisper_rules(sampled.tokens, setup_for(o), o.sample_len);
    EXPECT_EQ(sampled.temperature, 0.7);
}

TEST_F(DecodingCpuModel, BeamSizeOneEqualsGreedy) {
    const DecodingOptions o = options();
    const WindowSetup setup = setup_for(o);
    std::mt19937_64 rng(0);
    model_->listen(*mel_);
    const SearchResult greedy = sample_window(*model_, setup, 0.0, 1, rng);
    model_->listen(*mel_);
    const SearchResult beam = beam_search_window(*model_, setup, 1, 1.0);
    const Candidate& b = beam.candidates[best_candidate(beam.candidates)];
    EXPECT_EQ(b.tokens, greedy.candidates[0].tokens);
    EXPECT_NEAR(b.sum_logprob, greedy.candidates[0].sum_logprob, 1e-6);
    EXPECT_DOUBLE_EQ(beam.no_speech_prob, greedy.no_speech_prob);
}

TEST_F(DecodingCpuModel, DetectLanguageReturnsTheArgmaxLanguageToken) {
    const LanguageGuess guess = detect_language(*model_, *tokenizer_, *mel_);
    const auto& sp = tokenizer_->specials();
    ASSERT_GE(guess.token, sp.first_language);
    ASSERT_LT(guess.token, sp.first_language + sp.num_languages);
    EXPECT_EQ(guess.code, tokenizer_->language_code(guess.token));
    ASSERT_EQ(guess.probabilities.size(), 99U);
    EXPECT_EQ(guess.probabilities[0].first, guess.code);
    double total = 0.0;
    for (const auto& [code, p] : guess.probabilities) total += p;
    EXPECT_NEAR(total, 1.0, 1e-9);

    // Independently: the [SOT] logits, argmax over the language ids only.
    model_->listen(*mel_);
    const HostTensor logits = model_->prefill(HostTensor::i32({1, 1}, {sp.sot}));
    const auto row = logits.f32_values();
    const auto begin = row.begin() + sp.first_language;
    const auto best = std::max_element(begin, begin + sp.num_languages);
    EXPECT_EQ(guess.token, sp.first_language + static_cast<int32_t>(best - begin));
}

}  // namespace
