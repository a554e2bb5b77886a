// LiveController end to end on files paced like a microphone, with random checkpoints (which hear
// nothing, so only the pipeline is judged here): ordered updates and a final one, every frame
// consumed, silence and room noise gated off the decoder, stop() flushing, cancel() not, a slow
// engine dropping updates but no audio, and clear errors for a bad file or device. Tests wait for
// the state they need (updates published, audio delivered), never for a fixed time, so they hold
// on a loaded machine and on a fast one.
#include "earshot/core/live_controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/audio_file_error.h"
#include "live_fixture.h"
#include "room_noise.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kJfk = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";
constexpr int64_t kJfkFrames = 1100;  // 176000 samples / 160
constexpr double kJfkSeconds = 11.0;

// Polls `ready` every 5 ms until it holds (true) or `timeout` passes (false).
template <class Ready>
bool wait_until(Ready ready, std::chrono::milliseconds timeout = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!ready()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

class LiveControllerTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!fs::exists(kJfk) || !fs::exists(multilingual_tiktoken())) return;
        dir_ = std::make_unique<TempDir>();
        small_ = random_live_model(dir_->path() / "small", RandomModelSize::small).release();
    }
    static void TearDownTestSuite() {
        delete small_;
        small_ = nullptr;
        dir_.reset();
    }
    void SetUp() override {
        if (small_ == nullptr) {
            GTEST_SKIP() << "shared whisper assets are absent (" << kJfk
                         << "): jfk.wav and the vocabulary are needed";
        }
    }

    static app::LiveOptions file_options(const fs::path& input, double speed) {
        app::LiveOptions options;
        options.input = input;
        options.speed = speed;
        options.streaming.decoding.language = "en";
        return options;
    }

    static inline std::unique_ptr<TempDir> dir_;
    static inline app::LoadedModel* small_ = nullptr;
};

TEST_F(LiveControllerTest, AFileGivesOrderedUpdatesEveryFrameAndAFinalOne) {
    UpdateLog log;
    app::LiveController live(*small_->model, small_->tokenizer, file_options(kJfk, 40.0),
                             log.sink());
    live.start();
    ASSERT_TRUE(live.wait_for(60s));
    live.stop();
    const auto entries = log.entries();
    ASSERT_GE(entries.size(), 2u);
    double last_end = -1.0;
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto& u = entries[i].update.update;
        EXPECT_EQ(u.index, static_cast<int64_t>(i));
        EXPECT_GE(u.audio_end_s, last_end);
        EXPECT_LE(u.window_start_s, u.audio_end_s);
        EXPECT_LE(u.audio_end_s - u.window_start_s, 30.0 + 1e-9);
        EXPECT_EQ(u.final, i + 1 == entries.size());
        last_end = u.audio_end_s;
    }
    const auto& last = entries.back().update.update;
    EXPECT_NEAR(last.audio_end_s, 11.0, 1e-9);
    EXPECT_TRUE(last.tentative_text.empty());
    const app::LiveStats stats = live.stats();
    EXPECT_EQ(stats.frames, kJfkFrames);
    EXPECT_EQ(stats.dropped_frames, 0u);
    EXPECT_NEAR(stats.audio_s, 11.0, 1e-6);
    EXPECT_GT(stats.decoded_updates, 0);  // jfk is speech: the VAD let the decoder run
    EXPECT_TRUE(stats.error.empty()) << stats.error;
    ASSERT_TRUE(live.first_audio_at().has_value());
}

TEST_F(LiveControllerTest, SilenceAndRoomNoiseNeverReachTheDecoder) {
    TempDir dir;
    // A minute of digital silence, then a minute of a quiet office (brown and white noise, mains
    // hum, slow level drift; about -45 dBFS).
    std::vector<float> signal = digital_silence(60.0);
    const std::vector<float> noise = room_noise(60.0, 7);
    signal.insert(signal.end(), noise.begin(), noise.end());
    const fs::path wav = dir.path() / "quiet_minutes.wav";
    write_wav_pcm16(wav, signal);

    UpdateLog log;
    app::LiveController live(*small_->model, small_->tokenizer, file_options(wav, 120.0),
                             log.sink());
    live.start();
    ASSERT_TRUE(live.wait_for(60s));
    live.stop();
    EXPECT_EQ(log.transcript(), "");
    const app::LiveStats stats = live.stats();
    EXPECT_EQ(stats.decoded_updates, 0);
    // Every interval (0.5 s at most) is an update or one dropped because the engine thread was
    // late.
    EXPECT_GE(stats.updates + stats.coalesced_updates, 235);
    EXPECT_EQ(stats.frames, 12000);
    for (const auto& e : log.entries()) {
        EXPECT_TRUE(e.update.update.tentative_text.empty());
    }
}

TEST_F(LiveControllerTest, StopHearsWhatIsQueuedAndCommitsIt) {
    UpdateLog log;
    app::LiveController live(*small_->model, small_->tokenizer, file_options(kJfk, 1.0),
                             log.sink());
    live.start();
    // Stop once a second of jfk.wav (paced in real time) has been heard, well before its end.
    ASSERT_TRUE(wait_until([&] {
        const auto entries = log.entries();
        return !entries.empty() && entries.back().update.update.audio_end_s >= 1.0;
    }));
    live.stop();
    EXPECT_TRUE(live.done());
    const auto entries = log.entries();
    ASSERT_GE(entries.size(), 2u);
    const auto& last = entries.back().update.update;
    EXPECT_TRUE(last.final);
    EXPECT_TRUE(last.tentative_text.empty());
    EXPECT_GE(last.audio_end_s, entries[entries.size() - 2].update.update.audio_end_s);
    EXPECT_LT(last.audio_end_s, kJfkSeconds);  // stopped, not the end of the file
    // Every frame the source delivered was heard: audio_s * 100 frames, give or take the tail,
    // and the final update reaches the end of that audio.
    const app::LiveStats stats = live.stats();
    EXPECT_NEAR(static_cast<double>(stats.frames), stats.audio_s * 100.0, 1.0);
    EXPECT_NEAR(last.audio_end_s, stats.audio_s, 0.01);
}

TEST_F(LiveControllerTest, CancelEndsWithoutAFinalUpdate) {
    UpdateLog log;
    app::LiveController live(*small_->model, small_->tokenizer, file_options(kJfk, 1.0),
                             log.sink());
    live.start();
    // Cancel once updates are flowing, so that a final one would have something to follow.
    ASSERT_TRUE(wait_until([&] { return log.entries().size() >= 2; }));
    live.cancel();
    EXPECT_TRUE(live.done());
    const auto entries = log.entries();
    ASSERT_GE(entries.size(), 2u);
    for (const auto& e : entries) EXPECT_FALSE(e.update.update.final);
    EXPECT_LT(entries.back().update.update.audio_end_s, kJfkSeconds);
}

TEST_F(LiveControllerTest, ASlowEngineDropsUpdatesNotAudio) {
    // An engine late by construction, whatever the machine's speed: the first update's sink holds
    // the engine thread until the source (jfk at 30x) has delivered 3 s of audio past that update,
    // so the next update covers at least 5 update intervals the engine was too late for.
    UpdateLog log;
    const app::LiveController::UpdateSink record = log.sink();
    std::atomic<const app::LiveController*> controller{nullptr};
    bool held = false;  // engine thread only
    std::atomic<bool> delivered{false};
    const auto hold_first = [&](const app::LiveUpdate& u) {
        record(u);
        if (held) return;
        held = true;
        const double until_s = u.update.audio_end_s + 3.0;
        delivered = wait_until([&] {
            const app::LiveController* c = controller.load();
            return c != nullptr && c->stats().audio_s >= until_s;
        });
    };
    app::LiveOptions options = file_options(kJfk, 30.0);
    options.streaming.pacing = decoding::UpdatePacing::fixed;  // intervals of 0.5 s, as counted
    app::LiveController live(*small_->model, small_->tokenizer, options, hold_first);
    controller.store(&live);
    live.start();
    ASSERT_TRUE(live.wait_for(120s));
    live.stop();
    EXPECT_TRUE(delivered.load()) << "the source did not deliver 3 s while the engine was held";
    const app::LiveStats stats = live.stats();
    EXPECT_GE(stats.coalesced_updates, 5);
    EXPECT_EQ(stats.dropped_frames, 0u);
    EXPECT_EQ(stats.frames, kJfkFrames);
    EXPECT_LT(stats.updates, kJfkFrames / 50 + 1);
    std::printf(
        "engine held for 3 s of audio at 30x: %lld updates for 22 intervals, %lld dropped "
        "while busy, median engine %.0f ms\n",
        static_cast<long long>(stats.updates), static_cast<long long>(stats.coalesced_updates),
        stats.engine_ms.empty() ? 0.0 : stats.engine_ms[stats.engine_ms.size() / 2]);
}

TEST_F(LiveControllerTest, BadSourcesFailAtStartWithTheirReason) {
    {
        app::LiveController live(*small_->model, small_->tokenizer,
                                 file_options("/nonexistent/talk.wav", 1.0), nullptr);
        EXPECT_THROW(live.start(), audio::AudioFileError);
    }
    {
        app::LiveOptions options;
        options.device = "no such microphone 42";
        app::LiveController live(*small_->model, small_->tokenizer, options, nullptr);
        try {
            live.start();
            ADD_FAILURE() << "started on a device that does not exist";
        } catch (const audio::AudioDeviceError& e) {
            EXPECT_NE(std::string(e.what()).find("no such microphone 42"), std::string::npos)
                << e.what();
        }
    }
    {
        app::LiveController live(*small_->model, small_->tokenizer, file_options(kJfk, 0.0),
                                 nullptr);
        EXPECT_THROW(live.start(), std::invalid_argument);
    }
}

}  // namespace
}  // namespace earshot::test
