// Tests for OutputPlayer's position: heard_frame's arithmetic over stamped buffers, the stamp
// exchange between a writer and a reader thread, and (label device) playback into the virtual
// PulseAudio sink, whose stream clock the position follows to the end.
#include "earshot/audio/output_player.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/playback_clock.h"
#include "virtual_mic.h"

namespace earshot::audio {
namespace {

using namespace std::chrono_literals;

constexpr double kRate = 16000.0;

TEST(PlaybackClock, FollowsTheLatestBufferBackToWhatIsHeardNow) {
    // The callback has filled [8000, 8512), heard from t = 2.0 s; at t = 1.9 s the device plays
    // what lies 0.1 s (1600 frames) before it.
    const PlaybackStamp stamp{8000, 512, 2.0};
    EXPECT_EQ(heard_frame(stamp, 1.9, kRate, 0), 6400);
    EXPECT_EQ(heard_frame(stamp, 2.0, kRate, 0), 8000);
    EXPECT_EQ(heard_frame(stamp, 2.01, kRate, 0), 8160);
}

TEST(PlaybackClock, NeverAheadOfWhatWasWrittenNorBeforeTheStart) {
    const PlaybackStamp stamp{8000, 512, 2.0};
    // A late callback: the clock ran past the written frames.
    EXPECT_EQ(heard_frame(stamp, 2.5, kRate, 0), 8512);
    // Started at frame 7000: the queue's earlier silence is not before the start.
    EXPECT_EQ(heard_frame(stamp, 1.0, kRate, 7000), 7000);
    EXPECT_EQ(heard_frame(stamp, 1.95, kRate, 7000), 7200);
    // The last buffer at the end of the audio holds fewer frames: the position stops there.
    const PlaybackStamp last{15900, 100, 3.0};
    EXPECT_EQ(heard_frame(last, 9.0, kRate, 0), 16000);
}

TEST(PlaybackClock, ExchangeHasNothingUntilAStampAndForgetsItOnReset) {
    StampExchange exchange;
    PlaybackStamp stamp{1, 2, 3.0};
    EXPECT_FALSE(exchange.read(stamp));
    exchange.publish({100, 256, 0.5});
    ASSERT_TRUE(exchange.read(stamp));
    EXPECT_EQ(stamp.first_frame, 100);
    EXPECT_EQ(stamp.frames, 256);
    EXPECT_DOUBLE_EQ(stamp.dac_time_s, 0.5);
    exchange.reset();
    EXPECT_FALSE(exchange.read(stamp));
}

// A reader never sees a stamp torn between two writes: each written stamp's fields agree.
TEST(PlaybackClock, ReaderSeesWholeStampsWhileTheWriterPublishes) {
    StampExchange exchange;
    std::atomic<bool> stop{false};
    std::atomic<std::int64_t> written{0};
    std::thread writer([&] {
        for (std::int64_t i = 1; !stop.load(std::memory_order_relaxed); ++i) {
            exchange.publish({i, 2 * i, 0.25 * static_cast<double>(i)});
            written.store(i, std::memory_order_relaxed);
        }
    });
    std::int64_t reads = 0;
    std::int64_t last = 0;
    bool torn = false;
    bool backwards = false;
    for (; reads < 200'000; ++reads) {
        PlaybackStamp stamp;
        while (!exchange.read(stamp)) {
        }
        torn = torn || stamp.frames != 2 * stamp.first_frame ||
               stamp.dac_time_s != 0.25 * static_cast<double>(stamp.first_frame);
        backwards = backwards || stamp.first_frame < last;
        last = stamp.first_frame;
    }
    stop.store(true);
    writer.join();
    EXPECT_FALSE(torn);
    EXPECT_FALSE(backwards);
    EXPECT_GT(last, 0);
    PlaybackStamp final_stamp;
    ASSERT_TRUE(exchange.read(final_stamp));
    EXPECT_EQ(final_stamp.first_frame, written.load());
}

TEST(OutputPlayer, BeforePlayingItIsAtTheStartAndNotPlaying) {
    OutputPlayer player;
    player.set_audio(std::vector<float>(32000, 0.0f), 16000);
    EXPECT_FALSE(player.playing());
    EXPECT_DOUBLE_EQ(player.position_s(), 0.0);
    EXPECT_DOUBLE_EQ(player.duration_s(), 2.0);
    player.pause();  // nothing to pause
    EXPECT_FALSE(player.playing());
}

std::vector<float> tone(double seconds) {
    std::vector<float> samples(static_cast<std::size_t>(seconds * kRate));
    for (std::size_t i = 0; i < samples.size(); ++i) {
        samples[i] = 0.2f * static_cast<float>(
                                std::sin(2.0 * M_PI * 440.0 * static_cast<double>(i) / kRate));
    }
    return samples;
}

// Plays into the virtual sink: the position comes from the stream and runs from the start to the
// end of the audio without going back; a pause holds it; a new start plays from there.
TEST(OutputPlayerLiveDevice, PositionFollowsTheStreamToTheEnd) {
    test::VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();
    OutputPlayer player;
    player.set_audio(tone(1.0), 16000);
    player.play(0.25);
    EXPECT_TRUE(player.playing());
    double previous = player.position_s();
    EXPECT_GE(previous, 0.25);
    bool went_back = false;
    bool moved = false;
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (player.playing() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(10ms);
        const double now = player.position_s();
        went_back = went_back || now < previous;
        moved = moved || now > 0.3;
        EXPECT_LE(now, 1.0);
        previous = now;
    }
    EXPECT_FALSE(player.playing()) << "still playing after 10 s";
    EXPECT_FALSE(went_back);
    EXPECT_TRUE(moved);
    EXPECT_DOUBLE_EQ(player.position_s(), 1.0);

    player.play(0.1);
    while (player.playing() && player.position_s() < 0.3) std::this_thread::sleep_for(5ms);
    player.pause();
    const double held = player.position_s();
    EXPECT_FALSE(player.playing());
    EXPECT_GE(held, 0.1);
    EXPECT_LT(held, 1.0);
    std::this_thread::sleep_for(100ms);
    EXPECT_DOUBLE_EQ(player.position_s(), held);
    player.play(0.9);
    EXPECT_GE(player.position_s(), 0.9);
}

// A PulseAudio server that is not there: play() throws one AudioDeviceError saying so.
TEST(OutputPlayerLiveDevice, NoServerIsOneDeviceError) {
    test::TempDir dir("earshot-output-player");
    ::setenv("PULSE_SERVER", ("unix:" + (dir.path() / "none").string()).c_str(), 1);
    OutputPlayer player;
    player.set_audio(tone(0.5), 16000);
    try {
        player.play(0.0);
        // A machine whose default output is a sound card (not the PulseAudio plugin) may play.
        GTEST_SKIP() << "the default output device opened without a PulseAudio server";
    } catch (const AudioDeviceError& error) {
        EXPECT_FALSE(std::string(error.what()).empty());
        EXPECT_FALSE(player.playing());
    }
}

}  // namespace
}  // namespace earshot::audio
