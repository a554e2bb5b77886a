// transcribe() end to end on a scripted DecoderModel with the real multilingual tokenizer: the
// language detected once on the first window, the initial prompt, segments and text over two
// windows, the prompt carried into the second window, progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "scripted_decoder_model.h"
#include "tokenizer_assets.h"

namespace earshot::decoding {
namespace {

using backend::HostTensor;

TEST(LongFormTranscribe, TwoWindowsOnAScriptedModel) {
    if (!std::filesystem::exists(test::multilingual_tiktoken())) {
        GTEST_SKIP() << "multilingual.tiktoken not found under " << EARSHOT_SHARED_DIR;
    }
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(test::multilingual_tiktoken());
    const tokenizer::SpecialTokens& sp = tok.specials();
    const int32_t de = tok.language_token("de");
    const int32_t hallo = tok.encode(" Hallo").front();
    const int32_t ts_2s = sp.timestamp_begin + 100;  // <|2.00|>

    // Each window: <|0.00|> " Hallo" <|2.00|> EOT; after a bare [SOT] (language detection) the
    // model says <|de|>.
    int detections = 0;
    std::vector<std::vector<int32_t>> window_inputs;  // history at the first sampled step
    test::ScriptedDecoderModel model(tok.n_vocab(), 448, [&](std::span<const int32_t> history) {
        std::vector<float> logits(static_cast<size_t>(tok.n_vocab()), 0.0F);
        const int32_t last = history.back();
        int32_t next = sp.eot;
        if (last == sp.sot) {
            if (history.size() == 1) ++detections;
            next = de;
        } else if (last == sp.transcribe) {
            window_inputs.emplace_back(history.begin(), history.end());
            next = sp.timestamp_begin;
        } else if (last == sp.timestamp_begin) {
            next = hallo;
        } else if (last == hallo) {
            next = ts_2s;
        }
        logits[static_cast<size_t>(next)] = 40.0F;
        return logits;
    });

    TranscribeOptions options;
    options.decoding.beam_size = 1;
    options.decoding.temperatures = {0.0};
    options.initial_prompt = "  Ein Test. ";
    // 35 s of content plus the 30 s of appended silence; values do not matter to the script.
    const HostTensor mel = HostTensor::f32({80, 3500 + 3000}, -0.5F);
    std::vector<double> fractions;
    const Transcript transcript = transcribe(
        model, tok, mel, 3500, options, [&](double f) { fractions.push_back(f); }, nullptr);

    EXPECT_EQ(detections, 1);
    EXPECT_EQ(transcript.language, "de");
    ASSERT_EQ(transcript.segments.size(), 2u);
    EXPECT_DOUBLE_EQ(transcript.segments[0].start_s, 0.0);
    EXPECT_DOUBLE_EQ(transcript.segments[0].end_s, 2.0);
    // Window 1 ends in a single timestamp: window 2 starts 0.5 s before its end (seek_loop.h).
    EXPECT_DOUBLE_EQ(transcript.segments[1].start_s, 29.5);
    EXPECT_DOUBLE_EQ(transcript.segments[1].end_s, 31.5);
    EXPECT_EQ(transcript.segments[0].text, " Hallo");
    EXPECT_EQ(transcript.segments[0].tokens,
              (std::vector<int32_t>{sp.timestamp_begin, hallo, ts_2s}));
    EXPECT_EQ(transcript.text, " Hallo Hallo");
    EXPECT_DOUBLE_EQ(transcript.segments[1].temperature, 0.0);
    EXPECT_EQ(fractions, (std::vector<double>{2950.0 / 3500, 1.0}));

    // Window 1: <|startofprev|> " Ein Test." SOT <|de|> <|transcribe|>; window 2 also carries
    // window 1's tokens.
    const std::vector<int32_t> prompt = tok.encode(" Ein Test.");
    std::vector<int32_t> first{sp.startofprev};
    first.insert(first.end(), prompt.begin(), prompt.end());
    std::vector<int32_t> second = first;
    second.insert(second.end(), {sp.timestamp_begin, hallo, ts_2s});
    for (std::vector<int32_t>* tokens : {&first, &second}) {
        tokens->insert(tokens->end(), {sp.sot, de, sp.transcribe});
    }
    ASSERT_EQ(window_inputs.size(), 2u);
    EXPECT_EQ(window_inputs[0], first);
    EXPECT_EQ(window_inputs[1], second);
}

TEST(LongFormTranscribe, RejectsAMelOfTheWrongHeight) {
    if (!std::filesystem::exists(test::multilingual_tiktoken())) {
        GTEST_SKIP() << "multilingual.tiktoken not found under " << EARSHOT_SHARED_DIR;
    }
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(test::multilingual_tiktoken());
    test::ScriptedDecoderModel model(tok.n_vocab(), 448, [&](std::span<const int32_t>) {
        return std::vector<float>(static_cast<size_t>(tok.n_vocab()), 0.0F);
    });
    EXPECT_THROW(transcribe(model, tok, HostTensor::f32({128, 6000}), 3000, {}, nullptr, nullptr),
                 std::invalid_argument);
}

}  // namespace
}  // namespace earshot::decoding
