// The long-form seek loop (reference §5.5, §5.6, §5.8) driven by scripted window results: segments
// and seek for timestamp pairs, a single timestamp ending, no timestamps, the no-speech skip, the
// prompt carried and reset, padding of the last window, and termination on a 10-minute input.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "earshot/engine/decoding/seek_loop.h"

namespace earshot::decoding {
namespace {

using backend::HostTensor;

constexpr int32_t kEot = 999;
constexpr int32_t kTb = 1000;  // <|0.00|>
constexpr int64_t kMels = 4;

int32_t ts(int32_t index) { return kTb + index; }  // <|index * 0.02|>

// Text ids decode to " w<id>"; id 1 decodes to blank text.
SegmentVocabulary vocabulary() {
    SegmentVocabulary v;
    v.timestamp_begin = kTb;
    v.eot = kEot;
    v.decode_text = [](std::span<const int32_t> ids) {
        std::string text;
        for (int32_t id : ids) text += id == 1 ? std::string("  ") : " w" + std::to_string(id);
        return text;
    };
    return v;
}

// The silence value of the mel past the content (the caller appends silence before the log-mel).
constexpr float kSilence = -1.0F;

// mel [kMels, content + silence]: every content value = frame index + 1, so a window shows where
// it was cut, then `silence` frames of kSilence, so its padding stands out.
HostTensor ramp_mel(int64_t content, int64_t silence) {
    const int64_t n = content + silence;
    HostTensor mel = HostTensor::f32({kMels, n});
    auto values = mel.f32_values();
    for (int64_t m = 0; m < kMels; ++m) {
        for (int64_t f = 0; f < n; ++f) {
            values[static_cast<size_t>(m * n + f)] = f < content ? float(f + 1) : kSilence;
        }
    }
    return mel;
}

WindowResult result(std::vector<int32_t> tokens, double temperature = 0.0,
                    double no_speech_prob = 0.1, double avg_logprob = -0.3) {
    WindowResult r;
    r.tokens = std::move(tokens);
    r.temperature = temperature;
    r.no_speech_prob = no_speech_prob;
    r.avg_logprob = avg_logprob;
    r.compression_ratio = 1.5;
    return r;
}

// Plays scripted results in order and records each call's window start, real frames and prompt.
struct Script {
    std::vector<WindowResult> results;
    std::vector<int64_t> seeks;
    std::vector<int64_t> real_frames;  // frames before the silence padding
    std::vector<std::vector<int32_t>> prompts;

    WindowDecodeFn fn() {
        return [this](const HostTensor& window, std::span<const int32_t> prompt) {
            EXPECT_EQ(window.shape().size(), 3u);
            const int64_t frames = window.dim(2);
            const auto values = window.f32_values();
            seeks.push_back(int64_t(values[0]) - 1);
            int64_t real = 0;
            while (real < frames && values[size_t(real)] > 0.0F) ++real;
            // The last window is padded with the mel's own silence frames (silence padding).
            for (int64_t f = real; f < frames; ++f) EXPECT_EQ(values[size_t(f)], kSilence);
            // The last mel row is cut at the same frames.
            EXPECT_EQ(values[size_t((kMels - 1) * frames)], values[0]);
            real_frames.push_back(real);
            prompts.emplace_back(prompt.begin(), prompt.end());
            const size_t i = seeks.size() - 1;
            return i < results.size() ? results[i] : result({});
        };
    }
};

TEST(SeekLoop, PairsSingleEndingAndNoTimestamps) {
    Script script;
    // Window 1: two complete segments, then an unfinished tail [T410, 12] that is re-decoded.
    script.results.push_back(result({ts(0), 10, ts(150), ts(150), 11, ts(400), ts(410), 12}));
    // Window 2 at 8 s: a pair, then a single timestamp ending: the whole window is consumed.
    script.results.push_back(result({ts(0), 20, ts(100), ts(100), 21, ts(200)}));
    // Window 3 at 38 s, 12 s of audio: no timestamps, one segment over the window.
    script.results.push_back(result({30, 31}));
    std::vector<double> fractions;
    SeekLoopOptions options;
    options.resume_in_pauses = false;  // openai's seek points exactly
    const std::vector<Segment> segments = run_seek_loop(
        ramp_mel(5000, 3000), 5000, vocabulary(), options, script.fn(),
        [&](double f) { fractions.push_back(f); }, nullptr);

    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0, 800, 3800}));
    EXPECT_EQ(script.real_frames, (std::vector<int64_t>{3000, 3000, 1200}));
    EXPECT_EQ(fractions, (std::vector<double>{800.0 / 5000, 3800.0 / 5000, 1.0}));
    ASSERT_EQ(segments.size(), 5u);
    EXPECT_DOUBLE_EQ(segments[0].start_s, 0.0);
    EXPECT_DOUBLE_EQ(segments[0].end_s, 3.0);
    EXPECT_EQ(segments[0].text, " w10");
    EXPECT_EQ(segments[0].tokens, (std::vector<int32_t>{ts(0), 10, ts(150)}));
    EXPECT_DOUBLE_EQ(segments[1].start_s, 3.0);
    EXPECT_DOUBLE_EQ(segments[1].end_s, 8.0);
    EXPECT_EQ(segments[1].text, " w11");
    EXPECT_DOUBLE_EQ(segments[2].start_s, 8.0);
    EXPECT_DOUBLE_EQ(segments[2].end_s, 10.0);
    EXPECT_DOUBLE_EQ(segments[3].start_s, 10.0);
    EXPECT_DOUBLE_EQ(segments[3].end_s, 12.0);
    EXPECT_EQ(segments[3].tokens, (std::vector<int32_t>{ts(100), 21, ts(200)}));
    EXPECT_DOUBLE_EQ(segments[4].start_s, 38.0);
    EXPECT_DOUBLE_EQ(segments[4].end_s, 50.0);
    EXPECT_EQ(segments[4].text, " w30 w31");
    EXPECT_DOUBLE_EQ(segments[4].compression_ratio, 1.5);
    EXPECT_DOUBLE_EQ(segments[4].avg_logprob, -0.3);
    // Each segment carries the first frame of its window (openai's "seek").
    std::vector<int64_t> seeks;
    for (const Segment& s : segments) seeks.push_back(s.seek_frames);
    EXPECT_EQ(seeks, (std::vector<int64_t>{0, 0, 800, 800, 3800}));

    // The prompt grows by each window's kept tokens.
    ASSERT_EQ(script.prompts.size(), 3u);
    EXPECT_TRUE(script.prompts[0].empty());
    EXPECT_EQ(script.prompts[1], (std::vector<int32_t>{ts(0), 10, ts(150), ts(150), 11, ts(400)}));
    EXPECT_EQ(script.prompts[2].size(), 12u);
}

// Each segment carries the log-probabilities of its own tokens, the same part of the window's;
// a window decoded without them gives segments without them.
TEST(SeekLoop, SegmentsCarryTheirTokensLogprobs) {
    Script script;
    WindowResult first = result({ts(0), 10, ts(150), ts(150), 11, ts(400), ts(410), 12});
    first.token_logprobs = {-0.1, -0.2, -0.3, -0.4, -0.5, -0.6, -0.7, -0.8};
    script.results.push_back(first);
    script.results.push_back(result({ts(0), 20, ts(100), ts(100), 21, ts(200)}));
    SeekLoopOptions options;
    options.resume_in_pauses = false;
    const std::vector<Segment> segments =
        run_seek_loop(ramp_mel(3800, 3000), 3800, vocabulary(), options, script.fn(), {}, nullptr);
    ASSERT_EQ(segments.size(), 4u);
    EXPECT_EQ(segments[0].token_logprobs, (std::vector<double>{-0.1, -0.2, -0.3}));
    EXPECT_EQ(segments[1].token_logprobs, (std::vector<double>{-0.4, -0.5, -0.6}));
    EXPECT_TRUE(segments[2].token_logprobs.empty());
    EXPECT_TRUE(segments[3].token_logprobs.empty());
    EXPECT_EQ(segments[3].tokens.size(), 3u);
}

TEST(SeekLoop, WithoutPairsTheSegmentEndsAtTheLastTimestamp) {
    Script script;
    // A single ending without any pair: one segment to <|5.00|>, seek moves a whole window.
    script.results.push_back(result({ts(0), 5, ts(250)}));
    // The last timestamp is <|0.00|>: the segment spans the window's audio (10 s).
    script.results.push_back(result({ts(0), 6, 7}));
    SeekLoopOptions options;
    options.resume_in_pauses = false;  // openai's seek points exactly
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(4000, 3000), 4000, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0, 3000}));
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_DOUBLE_EQ(segments[0].end_s, 5.0);
    EXPECT_DOUBLE_EQ(segments[1].start_s, 30.0);
    EXPECT_DOUBLE_EQ(segments[1].end_s, 40.0);
    EXPECT_EQ(segments[1].text, " w6 w7");
}

TEST(SeekLoop, ZeroLengthAndBlankSegmentsKeepTimesButLoseTextAndTokens) {
    Script script;
    script.results.push_back(result({ts(0), ts(0), 10, ts(20), ts(20), 1, ts(30), ts(30)}));
    const std::vector<Segment> segments =
        run_seek_loop(ramp_mel(60, 3000), 60, vocabulary(), {}, script.fn(), nullptr, nullptr);
    ASSERT_EQ(segments.size(), 3u);
    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0}));  // seek += 30 * 2 = 60: done
    EXPECT_DOUBLE_EQ(segments[0].start_s, 0.0);          // [T0] alone: start == end
    EXPECT_DOUBLE_EQ(segments[0].end_s, 0.0);
    EXPECT_EQ(segments[0].text, "");
    EXPECT_TRUE(segments[0].tokens.empty());
    EXPECT_EQ(segments[1].text, " w10");
    EXPECT_DOUBLE_EQ(segments[1].end_s, 0.4);
    EXPECT_EQ(segments[2].text, "");  // blank text
    EXPECT_TRUE(segments[2].tokens.empty());
    EXPECT_DOUBLE_EQ(segments[2].start_s, 0.4);
    EXPECT_DOUBLE_EQ(segments[2].end_s, 0.6);
}

TEST(SeekLoop, NoSpeechSkipUnlessConfident) {
    Script script;
    // no_speech 0.9 and avg_logprob -1.5: skipped (no segment, prompt unchanged).
    script.results.push_back(result({ts(0), 10, ts(50), ts(50)}, 0.0, 0.9, -1.5));
    // no_speech 0.9 but avg_logprob -0.5 > -1: kept.
    script.results.push_back(result({ts(0), 11, ts(50), ts(50)}, 0.0, 0.9, -0.5));
    // no_speech exactly 0.6 is not above the threshold: kept.
    script.results.push_back(result({ts(0), 12, ts(50)}, 0.0, 0.6, -2.0));
    SeekLoopOptions options;
    options.resume_in_pauses = false;  // openai's seek points exactly
    options.prompt_tokens = {7, 8};
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(6100, 3000), 6100, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0, 3000, 3100}));
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_EQ(segments[0].text, " w11");
    EXPECT_DOUBLE_EQ(segments[0].start_s, 30.0);
    EXPECT_EQ(segments[1].text, " w12");
    EXPECT_EQ(script.prompts[0], (std::vector<int32_t>{7, 8}));
    EXPECT_EQ(script.prompts[1], (std::vector<int32_t>{7, 8}));
    EXPECT_EQ(script.prompts[2], (std::vector<int32_t>{7, 8, ts(0), 11, ts(50)}));
}

TEST(SeekLoop, PromptResetsAfterTemperatureAboveHalf) {
    Script script;
    script.results.push_back(result({ts(0), 10, ts(100)}, 0.4));  // kept in the prompt
    script.results.push_back(result({ts(0), 11, ts(100)}, 0.6));  // resets the prompt
    script.results.push_back(result({ts(0), 12, ts(100)}, 0.0));
    script.results.push_back(result({ts(0), 13, ts(100)}, 0.0));
    SeekLoopOptions options;
    options.resume_in_pauses = false;  // openai's seek points exactly
    options.prompt_tokens = {7};
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(12000, 3000), 12000, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    ASSERT_EQ(script.prompts.size(), 4u);
    EXPECT_EQ(script.prompts[0], (std::vector<int32_t>{7}));
    EXPECT_EQ(script.prompts[1], (std::vector<int32_t>{7, ts(0), 10, ts(100)}));
    EXPECT_TRUE(script.prompts[2].empty());
    EXPECT_EQ(script.prompts[3], (std::vector<int32_t>{ts(0), 12, ts(100)}));
    EXPECT_DOUBLE_EQ(segments[1].temperature, 0.6);
}

TEST(SeekLoop, WithoutConditioningOnlyTheFirstWindowSeesThePrompt) {
    Script script;
    script.results.assign(3, result({ts(0), 10, ts(100)}));
    SeekLoopOptions options;
    options.resume_in_pauses = false;  // openai's seek points exactly
    options.prompt_tokens = {7};
    options.condition_on_previous_text = false;
    run_seek_loop(ramp_mel(9000, 3000), 9000, vocabulary(), options, script.fn(), nullptr, nullptr);
    ASSERT_EQ(script.prompts.size(), 3u);
    EXPECT_EQ(script.prompts[0], (std::vector<int32_t>{7}));
    EXPECT_TRUE(script.prompts[1].empty());
    EXPECT_TRUE(script.prompts[2].empty());
}

TEST(SeekLoop, SmallModelWindowsUseTheirOwnFrames) {
    Script script;
    script.results.push_back(result({ts(0), 10, ts(100), ts(100)}));  // seek += 200
    SeekLoopOptions options;
    options.frames = 600;
    run_seek_loop(ramp_mel(1000, 600), 1000, vocabulary(), options, script.fn(), nullptr, nullptr);
    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0, 200, 800}));
    EXPECT_EQ(script.real_frames, (std::vector<int64_t>{600, 600, 200}));
}

// The default seek points (resume_in_pauses, seek_loop.h) on a 6 s model: every full window's
// successor starts in the pause before the next sentence, never inside one, and a segment's times
// are those of its own timestamps.
TEST(SeekLoop, FullWindowsResumeInThePauseBeforeTheNextSentence) {
    Script script;
    // Unfinished tail after <|2.20|>: the next window starts between 2.20 and 2.86 s, past the
    // middle and at most 0.5 s before 2.86 s: at 2.52 s (openai: at 2.20 s).
    script.results.push_back(result({ts(25), 10, ts(110), ts(143), 11, 12}));
    // An unfinished segment alone at <|0.60|>: nothing kept, resume 0.3 s in (openai: the text
    // " w13" at 2.52-3.12 s and a whole window on, cutting the sentence).
    script.results.push_back(result({ts(30), 13}));
    // The last segment ends at <|5.80|>, 0.2 s before the window's end: taken as cut there and
    // re-decoded; resume between <|2.40|> and <|3.00|>.
    script.results.push_back(result({ts(10), 14, ts(120), ts(150), 15, ts(290)}));
    // A single timestamp ending without a pair: the segment starts at its own <|0.10|>, and the
    // next window starts 0.5 s before this one's end (openai: at its end).
    script.results.push_back(result({ts(5), 16, ts(100)}));
    // The file's last window (1.98 s): an unfinished segment at <|0.00|> is kept to the end.
    script.results.push_back(result({ts(0), 17}));
    SeekLoopOptions options;
    options.frames = 600;
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(1300, 600), 1300, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0, 252, 282, 552, 1102}));
    ASSERT_EQ(segments.size(), 4u);
    const std::vector<std::string> texts{" w10", " w14", " w16", " w17"};
    const std::vector<std::pair<double, double>> times{
        {0.5, 2.2}, {3.02, 5.22}, {5.62, 7.52}, {11.02, 13.0}};
    for (size_t i = 0; i < segments.size(); ++i) {
        EXPECT_EQ(segments[i].text, texts[i]) << i;
        EXPECT_NEAR(segments[i].start_s, times[i].first, 1e-9) << i;
        EXPECT_NEAR(segments[i].end_s, times[i].second, 1e-9) << i;
    }
    // Only kept segments reach the prompt.
    EXPECT_EQ(script.prompts[4],
              (std::vector<int32_t>{ts(25), 10, ts(110), ts(10), 14, ts(120), ts(5), 16, ts(100)}));
}

// A window whose tokens are one timestamp: the model heard speech begin there and said nothing of
// it. Where the window can move (a full window, <|ts|> after <|0.00|>) the next one starts before
// the speech; where it cannot (the file's last window, or <|0.00|>), the window is decoded again
// without timestamps, so its speech is not a blank segment. Before, a file's last sentence could
// be lost this way: the micro model marks a sentence it takes as cut with <|ts|> alone.
TEST(SeekLoop, ASpeechOpeningWithNoTextIsDecodedWithoutTimestampsWhereTheWindowCannotMove) {
    Script script;
    // A full window at 0: <|0.00|> alone cannot move on; its text comes from the text-only decode.
    script.results.push_back(result({ts(0)}));
    // A full window at 6 s: <|0.98|> alone moves the next window to 0.5 s before it (resume_at).
    script.results.push_back(result({ts(49)}));
    // The file's last window (6.48-12.0 s, not full): <|0.50|> alone, decoded again without
    // timestamps.
    script.results.push_back(result({ts(25)}));
    Script text_only;
    text_only.results.push_back(result({40, 41}, 0.0, 0.1, -0.2));
    text_only.results.push_back(result({50, 51, 52}, 0.2, 0.1, -0.4));
    SeekLoopOptions options;
    options.frames = 600;
    options.decode_text_only = text_only.fn();
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(1200, 600), 1200, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    EXPECT_EQ(script.seeks, (std::vector<int64_t>{0, 600, 648}));
    EXPECT_EQ(text_only.seeks, (std::vector<int64_t>{0, 648}));
    EXPECT_EQ(text_only.real_frames, (std::vector<int64_t>{600, 552}));
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_EQ(segments[0].text, " w40 w41");
    EXPECT_NEAR(segments[0].start_s, 0.0, 1e-9);
    EXPECT_NEAR(segments[0].end_s, 6.0, 1e-9);
    EXPECT_EQ(segments[1].text, " w50 w51 w52");
    EXPECT_NEAR(segments[1].start_s, 6.98, 1e-9);
    EXPECT_NEAR(segments[1].end_s, 12.0, 1e-9);
    EXPECT_EQ(segments[1].tokens, (std::vector<int32_t>{50, 51, 52}));
    EXPECT_DOUBLE_EQ(segments[1].avg_logprob, -0.4);
    EXPECT_DOUBLE_EQ(segments[1].temperature, 0.2);
    // The text-only decode hears the same prompt as the window, and its text extends the prompt.
    EXPECT_EQ(text_only.prompts[1], (std::vector<int32_t>{40, 41}));
    EXPECT_EQ(script.prompts[2], (std::vector<int32_t>{40, 41}));

    // Without a text-only decoder, openai's rule: the last window's speech is a blank segment.
    Script plain;
    plain.results = script.results;
    options.decode_text_only = nullptr;
    const std::vector<Segment> blank = run_seek_loop(ramp_mel(1200, 600), 1200, vocabulary(),
                                                     options, plain.fn(), nullptr, nullptr);
    ASSERT_EQ(blank.size(), 2u);
    EXPECT_EQ(blank[0].text, "");
    EXPECT_EQ(blank[1].text, "");
}

// A window that is silence (§5.5) or has text of its own is never decoded again.
TEST(SeekLoop, TheTextOnlyDecodeRunsOnlyForASpeechOpeningWithNoText) {
    Script script;
    script.results.push_back(result({ts(0), 10, ts(100)}));             // text of its own
    script.results.push_back(result({ts(10)}, 0.0, 0.9, -1.5));         // silence: skipped
    script.results.push_back(result({ts(5), 11, ts(80), ts(90), 12}));  // unfinished, last
    Script text_only;
    SeekLoopOptions options;
    options.frames = 600;
    options.decode_text_only = text_only.fn();
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(1500, 600), 1500, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    EXPECT_TRUE(text_only.seeks.empty());
    ASSERT_GE(segments.size(), 1u);
    EXPECT_EQ(segments[0].text, " w10");
}

// A mel with the file's speech activity: loud hops (10 ms) in [from_s, to_s).
class SpeakingMel final : public MelWindowSource {
public:
    SpeakingMel(int64_t content, double from_s, double to_s)
        : SpeakingMel(content, std::vector<std::pair<double, double>>{{from_s, to_s}}) {}
    SpeakingMel(int64_t content, const std::vector<std::pair<double, double>>& runs)
        : mel_(ramp_mel(content, 600)), source_(mel_, content) {
        activity_.loud.assign(static_cast<size_t>(content), 0);
        for (const auto& [from_s, to_s] : runs) {
            for (size_t hop = static_cast<size_t>(from_s * 100.0);
                 hop < static_cast<size_t>(to_s * 100.0) && hop < activity_.loud.size(); ++hop) {
                activity_.loud[hop] = 1;
            }
        }
    }
    int64_t mels() const override { return source_.mels(); }
    int64_t content_frames() const override { return source_.content_frames(); }
    HostTensor window(int64_t seek, int64_t frames) override {
        return source_.window(seek, frames);
    }
    const SpeechActivity* speech_activity() const override { return &activity_; }

private:
    HostTensor mel_;
    TensorMelSource source_;
    SpeechActivity activity_;
};

// Where the file's speech activity is known, a lone timestamp over silence (a last window of the
// file's quiet end, say) is not decoded again: the model would make words up there. A text-only
// result that is silence by the §5.5 rule leaves the segment blank too.
TEST(SeekLoop, TheTextOnlyDecodeNeedsSpeechAfterTheTimestamp) {
    SeekLoopOptions options;
    options.frames = 600;
    for (const auto& [from_s, to_s, decoded] :
         std::vector<std::tuple<double, double, bool>>{{1.5, 3.0, true},   // speech after <|0.98|>
                                                       {0.0, 0.9, false},  // only before it
                                                       {3.0, 3.15, false}}) {  // 0.15 s: too little
        Script script;
        script.results.push_back(result({ts(49)}));  // the last window: 4 s of audio
        Script text_only;
        text_only.results.push_back(result({40, 41}));
        options.decode_text_only = text_only.fn();
        SpeakingMel mel(400, from_s, to_s);
        const std::vector<Segment> segments =
            run_seek_loop(mel, vocabulary(), options, script.fn(), nullptr, nullptr);
        ASSERT_EQ(segments.size(), 1u);
        EXPECT_EQ(text_only.seeks.size(), decoded ? 1u : 0u) << from_s;
        EXPECT_EQ(segments[0].text, decoded ? " w40 w41" : "") << from_s;
    }
    Script script;
    script.results.push_back(result({ts(49)}));
    Script text_only;
    text_only.results.push_back(result({40, 41}, 0.0, 0.9, -1.5));  // silence (§5.5)
    options.decode_text_only = text_only.fn();
    SpeakingMel mel(400, 1.5, 3.0);
    const std::vector<Segment> segments =
        run_seek_loop(mel, vocabulary(), options, script.fn(), nullptr, nullptr);
    EXPECT_EQ(text_only.seeks.size(), 1u);
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].text, "");
}

// A full window whose tokens are an unfinished segment at <|0.00|> (it cannot move on): where
// the file's speech activity shows a pause of 1 s or more and speech after it, the segment ends
// at the pause and the next window starts in it, so the sentence after the pause is decoded.
// Before (and without speech activity, as openai), the segment ran to the window's end and the
// next window started 6 s on: the micro model lost a sentence of a two-minute file this way.
TEST(SeekLoop, AnUnfinishedSegmentAtZeroEndsAtASentencePause) {
    SeekLoopOptions options;
    options.frames = 600;
    Script script;
    script.results.push_back(result({ts(0), 10, 11}));
    SpeakingMel mel(1200, {{0.3, 2.0}, {3.2, 5.0}, {7.0, 8.0}});
    const std::vector<Segment> segments =
        run_seek_loop(mel, vocabulary(), options, script.fn(), nullptr, nullptr);
    ASSERT_GE(script.seeks.size(), 2u);
    EXPECT_EQ(script.seeks[1], 270);  // 0.5 s before the speech at 3.2 s
    ASSERT_GE(segments.size(), 1u);
    EXPECT_EQ(segments[0].text, " w10 w11");
    EXPECT_NEAR(segments[0].start_s, 0.0, 1e-9);
    EXPECT_NEAR(segments[0].end_s, 2.0, 1e-9);

    // A pause shorter than 1 s is inside the sentence: openai's rule.
    Script within;
    within.results.push_back(result({ts(0), 10, 11}));
    SpeakingMel close(1200, {{0.3, 2.0}, {2.8, 5.0}, {7.0, 8.0}});
    const std::vector<Segment> whole =
        run_seek_loop(close, vocabulary(), options, within.fn(), nullptr, nullptr);
    ASSERT_GE(within.seeks.size(), 2u);
    EXPECT_EQ(within.seeks[1], 600);
    EXPECT_NEAR(whole.at(0).end_s, 6.0, 1e-9);
}

TEST(SeekLoop, TimesStayInsideTheWindowsAudio) {
    Script script;
    // 2 s of audio, but the decoder puts timestamps at 10 s and 20 s (in the padding).
    script.results.push_back(result({ts(0), 10, ts(500), ts(500), 11, ts(1000)}));
    const std::vector<Segment> segments =
        run_seek_loop(ramp_mel(200, 3000), 200, vocabulary(), {}, script.fn(), nullptr, nullptr);
    ASSERT_EQ(segments.size(), 2u);
    EXPECT_DOUBLE_EQ(segments[0].end_s, 2.0);
    EXPECT_DOUBLE_EQ(segments[1].start_s, 2.0);
    EXPECT_DOUBLE_EQ(segments[1].end_s, 2.0);
    EXPECT_EQ(script.seeks.size(), 1u);
}

// Segments in the padding past the audio: openai tests the unclamped times (not empty) and keeps
// the text; only the displayed times are clamped (here to 6.0-6.0 and 10.0-10.0), and the tokens
// still reach the next window's prompt.
TEST(SeekLoop, ASegmentPastTheAudioKeepsItsTextAndTokens) {
    Script script;
    // A 6 s model on 10 s of audio; window 1 ends in a single timestamp at <|8.00|>: seek += 6 s.
    script.results.push_back(result({ts(0), 10, ts(100), ts(350), 11, ts(400)}));
    SeekLoopOptions options;
    options.resume_in_pauses = false;  // openai's seek points exactly
    options.frames = 600;
    // Window 2 holds 4 s of audio: its second segment, 5.00-7.00 s in, lies past the audio (10 s).
    script.results.push_back(result({ts(0), 12, ts(100), ts(250), 13, ts(350)}));
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(1000, 600), 1000, vocabulary(),
                                                        options, script.fn(), nullptr, nullptr);
    ASSERT_EQ(segments.size(), 4u);
    EXPECT_EQ(segments[0].text, " w10");
    EXPECT_EQ(segments[1].text, " w11");
    EXPECT_EQ(segments[1].tokens, (std::vector<int32_t>{ts(350), 11, ts(400)}));
    EXPECT_DOUBLE_EQ(segments[1].start_s, 6.0);  // 3.5 and 8.0 s clamped to the window's 6 s
    EXPECT_DOUBLE_EQ(segments[1].end_s, 6.0);
    EXPECT_EQ(segments[2].text, " w12");
    EXPECT_DOUBLE_EQ(segments[2].start_s, 6.0);
    EXPECT_DOUBLE_EQ(segments[2].end_s, 8.0);
    EXPECT_EQ(segments[3].text, " w13");
    EXPECT_EQ(segments[3].tokens, (std::vector<int32_t>{ts(250), 13, ts(350)}));
    EXPECT_DOUBLE_EQ(segments[3].start_s, 10.0);  // 6 + 5.0 and 6 + 7.0 s, clamped to 10 s
    EXPECT_DOUBLE_EQ(segments[3].end_s, 10.0);
    ASSERT_EQ(script.prompts.size(), 2u);
    EXPECT_EQ(script.prompts[1], (std::vector<int32_t>{ts(0), 10, ts(100), ts(350), 11, ts(400)}));
}

TEST(SeekLoop, CancelStopsBeforeTheNextWindow) {
    Script script;
    std::atomic<bool> cancel{false};
    script.results.assign(5, result({ts(0), 10, ts(100)}));
    const std::vector<Segment> segments = run_seek_loop(
        ramp_mel(12000, 3000), 12000, vocabulary(), {}, script.fn(), [&](double) { cancel = true; },
        &cancel);
    EXPECT_EQ(script.seeks.size(), 1u);
    EXPECT_EQ(segments.size(), 1u);
}

// 10 minutes of frames and a decoder that mixes well-formed windows with degenerate ones (a pair
// at <|0.00|>, which §5.8 would not advance past, an immediate EOT, timestamps past the audio):
// seek always moves forward and the loop ends.
TEST(SeekLoop, TenMinutesTerminateWithSeekAlwaysAdvancing) {
    constexpr int64_t kContent = 60000;
    std::mt19937 rng(42);
    std::vector<int64_t> seeks;
    WindowDecodeFn decode = [&](const HostTensor& window, std::span<const int32_t>) {
        seeks.push_back(int64_t(window.f32_values()[0]) - 1);
        switch (rng() % 4) {
            case 0:
                return result({ts(0), ts(0), 10});
            case 1:
                return result({});
            case 2: {
                const auto a = int32_t(rng() % 1500);
                return result({ts(0), 10, ts(a), ts(a), 11});
            }
            default:
                return result({ts(0), 10, ts(1500)});
        }
    };
    const std::vector<Segment> segments = run_seek_loop(ramp_mel(kContent, 3000), kContent,
                                                        vocabulary(), {}, decode, nullptr, nullptr);
    ASSERT_GE(seeks.size(), 20u);  // at least 600 s / 30 s
    ASSERT_LE(seeks.size(), size_t(kContent));
    EXPECT_EQ(seeks.front(), 0);
    for (size_t i = 1; i < seeks.size(); ++i) ASSERT_GT(seeks[i], seeks[i - 1]) << i;
    EXPECT_LT(seeks.back(), kContent);
    double previous_end = 0.0;
    for (const Segment& s : segments) {
        EXPECT_LE(s.start_s, s.end_s);
        EXPECT_GE(s.start_s, previous_end - 1e-9);
        EXPECT_LE(s.end_s, 600.0 + 1e-9);
        previous_end = s.end_s;
    }
}

TEST(SeekLoop, RejectsAMelThatIsNotTwoDimensional) {
    Script script;
    EXPECT_THROW(run_seek_loop(HostTensor::f32({1, kMels, 10}), 10, vocabulary(), {}, script.fn(),
                               nullptr, nullptr),
                 std::invalid_argument);
}

}  // namespace
}  // namespace earshot::decoding
