// Word times of live dictation: the embedded micro model hears its held-out sentences spoken word
// by word (spoken_words.h: every word's start is exact by construction), through a streaming
// transcriber paced by the stream's clock (updates every 0.1 s and every 0.5 s of audio) and
// through the live controller (the file paced at 4x real time). With the alignment heads (what
// `earshot live` gives on the CPU backend) the median |start error| of the committed words heard
// right is at most 80 ms in each; on the same paced audio, the segment-share estimate (what a
// backend without cross-attention weights gives) is measurably worse. Times never go back: each
// word starts at or after the end of the committed word before it and ends at or after its start,
// inside the audio heard, so no later word, committed or tentative, claims a committed span.
// A model that returns no cross-attention weights gives the estimate, its words marked so.
// EARSHOT_LIVE_TRACE=1 prints every committed word's error.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "earshot/audio/log_mel.h"
#include "earshot/audio/mel_frame_queue.h"
#include "earshot/audio/mel_front_end.h"
#include "earshot/core/live_controller.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/streaming_transcriber.h"
#include "live_fixture.h"
#include "micro_model.h"
#include "plain_words.h"
#include "spoken_words.h"
#include "temp_dir.h"
#include "word_edits.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using decoding::WordTiming;

constexpr size_t kSentences = 12;
constexpr double kMedianStartErrorLimitS = 0.080;  // the bound, as for files
// The pacing of the file: times real time (the micro model's update takes a few ms).
constexpr double kSpeed = 4.0;
// Update intervals of the paced runs, in 10 ms frames: the shortest that engine_time pacing
// takes (what the micro model's few milliseconds per update get) and the longest (the default
// --step-ms, and every step of --fixed-step).
constexpr int64_t kShortestUpdateFrames = 10;
constexpr int64_t kLongestUpdateFrames = 50;
constexpr int64_t kLiveController = 0;
// The estimate must be worse than the alignment by at least this factor of its median error.
constexpr double kEstimateWorseFactor = 1.5;
constexpr double kSlackS = 1e-9;

// The CPU model without its cross-attention weights: a backend that cannot return them.
class WithoutCrossAttention final : public decoding::DecoderModel {
public:
    explicit WithoutCrossAttention(decoding::DecoderModel& inner) : inner_(inner) {}
    int64_t vocab() const override { return inner_.vocab(); }
    int64_t max_tokens() const override { return inner_.max_tokens(); }
    int64_t mels() const override { return inner_.mels(); }
    int64_t frames() const override { return inner_.frames(); }
    void listen(const backend::HostTensor& mel) override { inner_.listen(mel); }
    void expand(int64_t rows) override { inner_.expand(rows); }
    int64_t rows() const override { return inner_.rows(); }
    backend::HostTensor prefill(const backend::HostTensor& tokens) override {
        return inner_.prefill(tokens);
    }
    backend::HostTensor step(const backend::HostTensor& tokens, int32_t pos) override {
        return inner_.step(tokens, pos);
    }
    void reorder(std::span<const int64_t> source_rows) override { inner_.reorder(source_rows); }

private:
    decoding::DecoderModel& inner_;
};

struct RunResult {
    std::vector<decoding::StreamUpdate> updates;
    std::vector<decoding::StreamWord> committed;  // every committed word, in order
    std::vector<double> engine_ms;                // per decoded update
    double median_error_s = 0.0;
    double p90_error_s = 0.0;
    double mean_error_s = 0.0;
    size_t matched = 0;
};

class LiveWordTimes : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!fs::exists(micro_model_dir() / "model.safetensors")) return;
        const std::vector<std::vector<std::string>> sentences = micro_heldout_words(kSentences);
        SpeechOptions speech;  // word by word: every word's start is known to the sample
        speech.sentence_gap_s = 1.2;
        auto audio = speak_sentences(sentences, speech, &why_);
        if (!audio) return;
        dir_ = std::make_unique<TempDir>("earshot-live-word-times");
        wav_ = dir_->path() / "sentences.wav";
        write_wav_pcm16(wav_, audio->samples);
        spoken_ = std::make_unique<SpokenAudio>(std::move(*audio));
        loaded_ = app::load_model(micro_model_dir(), {}, backend::BackendChoice::cpu).release();
    }
    static void TearDownTestSuite() {
        runs_.clear();
        delete loaded_;
        loaded_ = nullptr;
        spoken_.reset();
        dir_.reset();
    }
    void SetUp() override {
        ASSERT_TRUE(fs::exists(micro_model_dir() / "model.safetensors")) << micro_model_dir();
        ASSERT_TRUE(spoken_) << why_;  // espeak-ng is a required package (packaging/setup.sh)
        ASSERT_NE(loaded_, nullptr);
    }

    // The file through the live controller (threads, the file paced at kSpeed, updates as the
    // engine's speed allows); `aligned`: the heads `earshot live` uses, else none.
    static RunResult run_live(bool aligned) {
        app::LiveOptions options;
        options.input = wav_;
        options.speed = kSpeed;
        options.streaming.decoding.language = "en";
        app::apply_model_defaults(*loaded_, options.streaming);
        if (!aligned) options.streaming.alignment_heads.clear();
        UpdateLog log;
        app::LiveController live(*loaded_->model, loaded_->tokenizer, options, log.sink());
        live.start();
        EXPECT_TRUE(live.wait_for(300s));
        live.stop();
        const app::LiveStats stats = live.stats();
        EXPECT_TRUE(stats.error.empty()) << stats.error;
        EXPECT_EQ(stats.dropped_frames, 0u);
        RunResult result;
        for (const auto& entry : log.entries()) result.updates.push_back(entry.update.update);
        measure(result, aligned ? "live controller, aligned" : "live controller, estimated");
        return result;
    }

    // The same audio through the same front end (log-mel frames, energy VAD) and a streaming
    // transcriber on this thread, paced by the stream's clock: an update after every
    // `update_frames` of audio, as the live controller runs them when the engine keeps up. The
    // same input gives the same updates, whatever the machine's load.
    static RunResult run_paced(bool aligned, int64_t update_frames,
                               decoding::DecoderModel* model = nullptr) {
        if (model == nullptr) model = loaded_->model.get();
        decoding::StreamingOptions options;
        options.decoding.language = "en";
        app::apply_model_defaults(*loaded_, options);
        if (!aligned) options.alignment_heads.clear();
        options.pacing = decoding::UpdatePacing::fixed;
        options.update_frames = update_frames;
        const int mels = static_cast<int>(loaded_->model->mels());
        const auto frames = static_cast<size_t>(spoken_->samples.size() / 160 + 16);
        audio::MelFrameQueue queue(mels, frames);
        audio::MelFrontEnd front(mels, queue);
        front.push(spoken_->samples);
        front.finish();
        decoding::StreamingTranscriber transcriber(
            *model, loaded_->tokenizer,
            [mels](std::span<const float> raw, int64_t window_frames, std::span<float> out) {
                const audio::LogMel window = audio::normalize_window(raw, mels, window_frames);
                std::copy(window.values.begin(), window.values.end(), out.begin());
            },
            options);
        RunResult result;
        std::vector<float> frame(static_cast<size_t>(mels));
        audio::MelFrameInfo info;
        while (transcriber.room_frames() > 0 && queue.pop(frame, info)) {
            transcriber.push_frame(frame, info.speech);
            if (transcriber.update_due()) result.updates.push_back(transcriber.update());
        }
        EXPECT_EQ(queue.size_frames(), 0u) << "frames left unheard";
        result.updates.push_back(transcriber.finish());
        const std::string what = "paced every " + std::to_string(update_frames * 10) + " ms, " +
                                 (model != loaded_->model.get() ? "a model without cross-attention"
                                  : aligned                     ? "aligned"
                                                                : "estimated");
        measure(result, what.c_str());
        return result;
    }

    // Matches the committed words to the said ones and measures their start errors.
    static void measure(RunResult& result, const char* what) {
        for (const decoding::StreamUpdate& u : result.updates) {
            result.committed.insert(result.committed.end(), u.committed_words.begin(),
                                    u.committed_words.end());
            if (u.gate == decoding::UpdateGate::decoded ||
                u.gate == decoding::UpdateGate::no_speech) {
                result.engine_ms.push_back(u.engine_ms);
            }
        }
        std::vector<std::string> said;
        for (const SpokenWord& w : spoken_->words) said.push_back(plain_word(w.text));
        std::vector<std::string> heard;
        for (const auto& w : result.committed) heard.push_back(plain_word(w.text));
        const std::vector<long> match = match_words(said, heard, WordMatch::equal);
        std::vector<double> errors_s;
        for (size_t j = 0; j < heard.size(); ++j) {
            if (match[j] < 0) continue;
            const SpokenWord& spoken = spoken_->words[static_cast<size_t>(match[j])];
            errors_s.push_back(std::abs(result.committed[j].start_s - spoken.start_s));
            if (std::getenv("EARSHOT_LIVE_TRACE") != nullptr) {
                std::printf("  %-12s heard [%6.2f, %6.2f] said [%6.2f, %6.2f] error %4.0f ms\n",
                            heard[j].c_str(), result.committed[j].start_s,
                            result.committed[j].end_s, spoken.start_s, spoken.end_s,
                            (result.committed[j].start_s - spoken.start_s) * 1000.0);
            }
        }
        result.matched = errors_s.size();
        if (!errors_s.empty()) {
            std::sort(errors_s.begin(), errors_s.end());
            result.median_error_s = errors_s[errors_s.size() / 2];
            result.p90_error_s = errors_s[errors_s.size() * 9 / 10];
            result.mean_error_s = mean(errors_s);
        }
        std::printf(
            "%s: %zu of %zu said words committed right, |start error| median %.0f ms, 90th "
            "percentile %.0f ms, mean %.0f ms; %zu decoded updates, engine %.1f ms per update "
            "(mean)\n",
            what, result.matched, said.size(), result.median_error_s * 1000.0,
            result.p90_error_s * 1000.0, result.mean_error_s * 1000.0, result.engine_ms.size(),
            mean(result.engine_ms));
    }

    static double mean(const std::vector<double>& values) {
        double sum = 0.0;
        for (double v : values) sum += v;
        return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
    }

    // Times never go back and committed spans are never claimed again (see the file comment).
    static void expect_monotone(const RunResult& result, WordTiming timing) {
        double committed_end_s = 0.0;
        size_t words = 0;
        for (const decoding::StreamUpdate& u : result.updates) {
            EXPECT_EQ(u.word_timing, timing) << "update " << u.index;
            std::string text;
            double floor_s = committed_end_s;
            for (const auto* list : {&u.committed_words, &u.tentative_words}) {
                for (const decoding::StreamWord& w : *list) {
                    ++words;
                    EXPECT_GE(w.start_s, floor_s - kSlackS) << "update " << u.index << w.text;
                    EXPECT_LE(w.start_s, w.end_s) << "update " << u.index << w.text;
                    EXPECT_LE(w.end_s, u.audio_end_s + kSlackS) << "update " << u.index << w.text;
                    floor_s = w.end_s;
                    if (list == &u.committed_words) {
                        committed_end_s = w.end_s;
                        text += w.text;
                    }
                }
            }
            EXPECT_EQ(text, u.committed_text) << "update " << u.index;
        }
        EXPECT_GT(words, 0u);
        if (timing == WordTiming::aligned) {
            for (const decoding::StreamWord& w : result.committed) {
                EXPECT_EQ(w.timing, WordTiming::aligned) << w.text;
            }
        } else {
            for (const decoding::StreamWord& w : result.committed) {
                EXPECT_EQ(w.timing, WordTiming::estimated) << w.text;
            }
        }
    }

    // Each run once per suite, shared by the tests. update_frames 0: the live controller.
    static const RunResult& run_once(WordTiming timing, int64_t update_frames) {
        const bool aligned = timing == WordTiming::aligned;
        std::unique_ptr<RunResult>& slot = runs_[{aligned, update_frames}];
        if (!slot) {
            slot = std::make_unique<RunResult>(
                update_frames == 0 ? run_live(aligned) : run_paced(aligned, update_frames));
        }
        return *slot;
    }

    static inline std::unique_ptr<TempDir> dir_;
    static inline fs::path wav_;
    static inline std::unique_ptr<SpokenAudio> spoken_;
    static inline std::string why_;
    static inline app::LoadedModel* loaded_ = nullptr;
    static inline std::map<std::pair<bool, int64_t>, std::unique_ptr<RunResult>> runs_;
};

TEST_F(LiveWordTimes, AlignedCommittedWordStartsAreWithin80Ms) {
    for (const int64_t frames : {kShortestUpdateFrames, kLongestUpdateFrames, kLiveController}) {
        const RunResult& aligned = run_once(WordTiming::aligned, frames);
        ASSERT_GE(aligned.matched, spoken_->words.size() / 2) << "too few words committed right";
        EXPECT_LE(aligned.median_error_s, kMedianStartErrorLimitS)
            << "update interval " << frames << " frames (0: the live controller)";
    }
}

TEST_F(LiveWordTimes, TheSegmentShareEstimateIsMeasurablyWorseOnTheSameAudio) {
    const RunResult& aligned = run_once(WordTiming::aligned, kLongestUpdateFrames);
    const RunResult& estimated = run_once(WordTiming::estimated, kLongestUpdateFrames);
    ASSERT_GE(estimated.matched, spoken_->words.size() / 2) << "too few words committed right";
    EXPECT_GT(estimated.median_error_s, kEstimateWorseFactor * aligned.median_error_s)
        << "the estimate is not measurably worse than the alignment";
}

TEST_F(LiveWordTimes, TimesNeverGoBackAndCommittedSpansAreNeverClaimedAgain) {
    for (const int64_t frames : {kShortestUpdateFrames, kLongestUpdateFrames, kLiveController}) {
        expect_monotone(run_once(WordTiming::aligned, frames), WordTiming::aligned);
    }
    expect_monotone(run_once(WordTiming::estimated, kLongestUpdateFrames), WordTiming::estimated);
}

TEST_F(LiveWordTimes, AModelWithoutCrossAttentionKeepsTheEstimateAndSaysSo) {
    WithoutCrossAttention model(*loaded_->model);
    // Asked to align (the heads are set), it cannot: the words are the estimate's, marked so.
    const RunResult fallback = run_paced(true, kLongestUpdateFrames, &model);
    const RunResult& estimated = run_once(WordTiming::estimated, kLongestUpdateFrames);
    expect_monotone(fallback, WordTiming::estimated);
    ASSERT_EQ(fallback.committed.size(), estimated.committed.size());
    ASSERT_FALSE(fallback.committed.empty());
    for (size_t i = 0; i < fallback.committed.size(); ++i) {
        EXPECT_EQ(fallback.committed[i].text, estimated.committed[i].text) << i;
        EXPECT_EQ(fallback.committed[i].start_s, estimated.committed[i].start_s) << i;
        EXPECT_EQ(fallback.committed[i].end_s, estimated.committed[i].end_s) << i;
    }
}

}  // namespace
}  // namespace earshot::test
