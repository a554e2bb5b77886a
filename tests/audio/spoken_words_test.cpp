// Spoken test audio (tests/support/spoken_words.h): words loud where they are said to be, silence
// between them, exact layout, a WAV round trip, the resampler, and the dictation sentence list.
#include "spoken_words.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "dictation_sentences.h"
#include "temp_dir.h"
#include "wav_file.h"

namespace earshot::test {
namespace {

constexpr double kSampleS = 1.0 / 16000.0;

std::size_t to_sample(double seconds) {
    return static_cast<std::size_t>(std::llround(seconds * 16000.0));
}

double rms(const std::vector<float>& samples, std::size_t begin, std::size_t end) {
    double sum = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
        const auto x = static_cast<double>(samples[i]);
        sum += x * x;
    }
    return end > begin ? std::sqrt(sum / static_cast<double>(end - begin)) : 0.0;
}

float peak(const std::vector<float>& samples, std::size_t begin, std::size_t end) {
    float p = 0.0f;
    for (std::size_t i = begin; i < end; ++i) p = std::max(p, std::abs(samples[i]));
    return p;
}

// The first three dictation sentences, spoken once for the whole suite.
class SpokenWords : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        sentences_ = new std::vector<std::vector<std::string>>(dictation_sentence_words(0, 3));
        audio_ = new std::optional<SpokenAudio>(speak_sentences(*sentences_, options_, &why_));
    }
    static void TearDownTestSuite() {
        delete audio_;
        delete sentences_;
        audio_ = nullptr;
        sentences_ = nullptr;
    }
    void SetUp() override { ASSERT_TRUE(audio_->has_value()) << "no spoken audio: " << why_; }
    static const SpokenAudio& audio() { return **audio_; }

    static inline SpeechOptions options_{};
    static inline std::string why_;
    static inline std::vector<std::vector<std::string>>* sentences_ = nullptr;
    static inline std::optional<SpokenAudio>* audio_ = nullptr;
};

TEST_F(SpokenWords, WordsComeInTheOrderGivenAndDoNotOverlap) {
    std::vector<std::string> expected;
    for (const auto& sentence : *sentences_)
        expected.insert(expected.end(), sentence.begin(), sentence.end());
    ASSERT_EQ(audio().words.size(), expected.size());
    ASSERT_GE(expected.size(), 15u);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const SpokenWord& word = audio().words[i];
        EXPECT_EQ(word.text, expected[i]);
        // Every word lasts between 0.1 s and 1 s at 160 words per minute.
        EXPECT_GT(word.end_s - word.start_s, 0.1) << word.text;
        EXPECT_LT(word.end_s - word.start_s, 1.0) << word.text;
        if (i > 0) {
            EXPECT_GT(word.start_s, audio().words[i - 1].end_s) << word.text;
        }
    }
}

TEST_F(SpokenWords, LayoutFollowsTheGapsExactly) {
    const auto& words = audio().words;
    const auto& sentences = audio().sentences;
    ASSERT_EQ(sentences.size(), 3u);
    EXPECT_NEAR(words.front().start_s, options_.lead_s, 0.5 * kSampleS);
    EXPECT_NEAR(audio().duration_s() - words.back().end_s, options_.tail_s, 0.5 * kSampleS);
    EXPECT_DOUBLE_EQ(audio().duration_s(), static_cast<double>(audio().samples.size()) / 16000.0);
    std::size_t w = 0;
    for (std::size_t s = 0; s < sentences.size(); ++s) {
        const auto [start_s, end_s] = sentences[s];
        const std::size_t count = (*sentences_)[s].size();
        // A sentence span runs from its first word's start to its last word's end.
        EXPECT_DOUBLE_EQ(start_s, words[w].start_s);
        EXPECT_DOUBLE_EQ(end_s, words[w + count - 1].end_s);
        for (std::size_t i = w; i < w + count; ++i) {
            EXPECT_GE(words[i].start_s, start_s);
            EXPECT_LE(words[i].end_s, end_s);
            if (i > w) {
                EXPECT_NEAR(words[i].start_s - words[i - 1].end_s, options_.word_gap_s,
                            0.5 * kSampleS);
            }
        }
        if (s > 0) {
            EXPECT_NEAR(start_s - sentences[s - 1].second, options_.sentence_gap_s, 0.5 * kSampleS);
        }
        w += count;
    }
}

TEST_F(SpokenWords, WordsAreLoudAndGapsAreSilent) {
    const auto& samples = audio().samples;
    const auto& words = audio().words;
    // The speech peaks at the gain.
    EXPECT_NEAR(peak(samples, 0, samples.size()), options_.gain, 1e-6);
    double quietest_word_rms = 1.0;
    double loudest_gap_rms = 0.0;
    std::size_t previous_end = 0;
    for (const SpokenWord& word : words) {
        const std::size_t begin = to_sample(word.start_s);
        const std::size_t end = to_sample(word.end_s);
        ASSERT_LT(begin, end);
        ASSERT_LE(end, samples.size());
        // Trimmed: the first and last samples of a word are above the trim threshold.
        EXPECT_GE(std::abs(samples[begin]), 1e-3f) << word.text;
        EXPECT_GE(std::abs(samples[end - 1]), 1e-3f) << word.text;
        quietest_word_rms = std::min(quietest_word_rms, rms(samples, begin, end));
        EXPECT_EQ(peak(samples, previous_end, begin), 0.0f) << "before " << word.text;
        loudest_gap_rms = std::max(loudest_gap_rms, rms(samples, previous_end, begin));
        previous_end = end;
    }
    EXPECT_EQ(peak(samples, previous_end, samples.size()), 0.0f) << "tail";
    EXPECT_GT(quietest_word_rms, 0.01);
    EXPECT_GT(quietest_word_rms, 100.0 * std::max(loudest_gap_rms, 1e-5));
}

TEST_F(SpokenWords, WavRoundTripIsWithinOneStep) {
    TempDir dir("earshot-spoken-words-test");
    const auto path = dir.path() / "speech.wav";
    write_wav_pcm16(path, audio().samples);
    const WavPcm16 wav = read_wav_pcm16(path);
    EXPECT_EQ(wav.sample_rate_hz, 16000);
    EXPECT_EQ(wav.channels, 1);
    ASSERT_EQ(wav.samples.size(), audio().samples.size());
    float worst = 0.0f;
    for (std::size_t i = 0; i < wav.samples.size(); ++i) {
        worst = std::max(worst, std::abs(wav.samples[i] - audio().samples[i]));
    }
    EXPECT_LE(worst, 1.0f / 32768.0f);
    EXPECT_GT(worst, 0.0f);  // speech is not on the 16-bit grid: it was rounded
}

TEST_F(SpokenWords, SameInputsGiveTheSameSamples) {
    std::string why;
    const std::vector<std::vector<std::string>> one{(*sentences_)[1]};
    const auto first = speak_sentences(one, options_, &why);
    ASSERT_TRUE(first.has_value()) << why;
    const auto second = speak_sentences(one, options_, &why);
    ASSERT_TRUE(second.has_value()) << why;
    EXPECT_EQ(first->samples, second->samples);
    ASSERT_EQ(first->words.size(), one[0].size());
    for (std::size_t i = 0; i < first->words.size(); ++i) {
        EXPECT_EQ(first->words[i].start_s, second->words[i].start_s);
        EXPECT_EQ(first->words[i].end_s, second->words[i].end_s);
    }
}

TEST(SpokenWordsResample, KeepsPassbandAndRemovesWhatAliases) {
    auto sine = [](double hz, int rate_hz, std::size_t n) {
        std::vector<float> out(n);
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = static_cast<float>(
                0.5 * std::sin(2.0 * std::numbers::pi * hz * static_cast<double>(i) / rate_hz));
        }
        return out;
    };
    const std::vector<float> in_band =
        spoken_detail::resample(sine(1000.0, 22050, 22050), 22050, 16000);
    ASSERT_EQ(in_band.size(), 16000u);
    const std::vector<float> expected = sine(1000.0, 16000, 16000);
    float worst = 0.0f;
    for (std::size_t i = 200; i < 15800; ++i)
        worst = std::max(worst, std::abs(in_band[i] - expected[i]));
    EXPECT_LT(worst, 0.005f);
    // 10 kHz is above the new 8 kHz Nyquist: filtered out rather than folded to 6 kHz.
    const std::vector<float> above =
        spoken_detail::resample(sine(10000.0, 22050, 22050), 22050, 16000);
    EXPECT_LT(rms(above, 200, 15800), 0.005);
}

TEST(DictationSentences, FortyShortLowerCaseSentences) {
    const auto& sentences = dictation_sentences();
    EXPECT_EQ(sentences.size(), 40u);
    EXPECT_EQ(std::set<std::string>(sentences.begin(), sentences.end()).size(), sentences.size());
    for (const std::string& sentence : sentences) {
        const std::vector<std::string> words = sentence_words(sentence);
        EXPECT_GE(words.size(), 3u) << sentence;
        EXPECT_LE(words.size(), 9u) << sentence;
        for (char c : sentence) {
            EXPECT_TRUE(c == ' ' || (c >= 'a' && c <= 'z')) << sentence;
        }
    }
    // Wrapping: the 41st sentence is the first again.
    const auto wrapped = dictation_sentence_words(39, 2);
    ASSERT_EQ(wrapped.size(), 2u);
    EXPECT_EQ(wrapped[1], sentence_words(sentences[0]));
}

}  // namespace
}  // namespace earshot::test
