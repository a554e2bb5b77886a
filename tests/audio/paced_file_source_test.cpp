// PacedFileSource: every sample of the file arrives in order and equals decode_file's, pacing
// holds a faster-than-real-time run back to its schedule, stop() ends a run promptly, and the
// typed errors.
#include "earshot/audio/paced_file_source.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "earshot/audio/file_decoder.h"
#include "temp_dir.h"

namespace earshot::audio {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A 16-bit PCM mono WAV of `seconds` at 16 kHz: a 440 Hz tone whose amplitude sweeps up, so that
// every sample differs from its neighbours and a reordering or gap shows.
fs::path write_test_wav(const fs::path& dir, double seconds) {
    const auto frames = static_cast<std::uint32_t>(seconds * 16000);
    std::vector<std::int16_t> pcm(frames);
    for (std::uint32_t n = 0; n < frames; ++n) {
        const double t = static_cast<double>(n) / 16000.0;
        const double amplitude = 0.1 + 0.8 * static_cast<double>(n) / static_cast<double>(frames);
        pcm[n] = static_cast<std::int16_t>(
            std::lround(32767.0 * amplitude * std::sin(2 * std::numbers::pi * 440.0 * t)));
    }
    const fs::path path = dir / "paced.wav";
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) throw std::runtime_error("cannot write " + path.string());
    auto u32 = [file](std::uint32_t v) {
        const unsigned char b[4] = {
            static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
            static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 24)};
        std::fwrite(b, 1, 4, file);
    };
    auto u16 = [file](std::uint16_t v) {
        const unsigned char b[2] = {static_cast<unsigned char>(v),
                                    static_cast<unsigned char>(v >> 8)};
        std::fwrite(b, 1, 2, file);
    };
    const std::uint32_t data_bytes = frames * 2;
    std::fwrite("RIFF", 1, 4, file);
    u32(36 + data_bytes);
    std::fwrite("WAVEfmt ", 1, 8, file);
    u32(16);
    u16(1);          // PCM
    u16(1);          // mono
    u32(16000);      // rate
    u32(16000 * 2);  // bytes per second
    u16(2);          // block align
    u16(16);         // bits
    std::fwrite("data", 1, 4, file);
    u32(data_bytes);
    for (const std::int16_t v : pcm) u16(static_cast<std::uint16_t>(v));
    std::fclose(file);
    return path;
}

class PacedFileSourceTest : public ::testing::Test {
protected:
    test::TempDir dir_{"earshot-paced"};
    fs::path wav_ = write_test_wav(dir_.path(), 3.0);
};

TEST_F(PacedFileSourceTest, DeliversEverySampleInOrder) {
    const DecodedAudio expected = decode_file(wav_);
    ASSERT_EQ(expected.samples.size(), 48000u);
    std::vector<float> received;
    std::size_t calls = 0;
    std::size_t largest_call = 0;
    PacedFileSource source(wav_,
                           [&](std::span<const float> samples) {
                               received.insert(received.end(), samples.begin(), samples.end());
                               ++calls;
                               largest_call = std::max(largest_call, samples.size());
                           },
                           {.speed = 50.0});
    ASSERT_TRUE(source.duration_s().has_value());
    EXPECT_NEAR(*source.duration_s(), 3.0, 1e-3);
    EXPECT_FALSE(source.finished());
    source.start();
    source.wait();
    EXPECT_TRUE(source.finished());
    EXPECT_TRUE(source.reached_end());
    EXPECT_EQ(source.error(), "");
    EXPECT_DOUBLE_EQ(source.delivered_s(), 3.0);
    EXPECT_EQ(received, expected.samples);
    // Delivered in many paced calls, not in one block.
    EXPECT_GT(calls, 10u);
    EXPECT_LE(largest_call, PacedFileSource::kChunkSamples);
}

TEST_F(PacedFileSourceTest, PacingHoldsAFastRunToItsSchedule) {
    // 3 s at 20x is due over 0.15 s of wall time at the earliest. A lower bound only: how much
    // longer it takes depends on the machine.
    std::int64_t samples = 0;
    PacedFileSource source(
        wav_, [&](std::span<const float> s) { samples += static_cast<std::int64_t>(s.size()); },
        {.speed = 20.0});
    const auto start = Clock::now();
    source.start();
    source.wait();
    const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("3 s at 20x delivered in %.3f s of wall time\n", elapsed_s);
    EXPECT_GE(elapsed_s, 0.15);
    EXPECT_EQ(samples, 48000);
    EXPECT_TRUE(source.reached_end());
}

TEST_F(PacedFileSourceTest, StopMidWayReturnsPromptly) {
    std::atomic<std::int64_t> samples{0};
    // At 0.01x the 3 s are due over 300 s: a stop() that waited for the pacing would take minutes.
    PacedFileSource source(
        wav_, [&](std::span<const float> s) { samples += static_cast<std::int64_t>(s.size()); },
        {.speed = 0.01});
    source.start();
    // Stop once the first samples arrived (waiting for that state, not for a time).
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (samples.load() == 0 && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_GT(samples.load(), 0);
    const auto before_stop = Clock::now();
    source.stop();
    const double stop_s = std::chrono::duration<double>(Clock::now() - before_stop).count();
    std::printf("stop() returned after %.3f s\n", stop_s);
    // Far inside the ~300 s still due, whatever the machine's load.
    EXPECT_LT(stop_s, 30.0);
    EXPECT_TRUE(source.finished());
    EXPECT_FALSE(source.reached_end());
    EXPECT_EQ(source.error(), "");
    const std::int64_t at_stop = samples.load();
    EXPECT_GT(at_stop, 0);
    EXPECT_LT(at_stop, 48000);
    EXPECT_DOUBLE_EQ(source.delivered_s(), static_cast<double>(at_stop) / 16000.0);
    source.wait();  // returns at once
    source.stop();  // idempotent
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(samples.load(), at_stop);
}

TEST_F(PacedFileSourceTest, DestroyingARunningSourceStopsIt) {
    std::atomic<std::int64_t> samples{0};
    {
        PacedFileSource source(wav_, [&](std::span<const float> s) {
            samples += static_cast<std::int64_t>(s.size());
        });
        source.start();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const std::int64_t after = samples.load();
    EXPECT_LT(after, 48000);
}

TEST_F(PacedFileSourceTest, AConsumerExceptionEndsTheRunAsAnError) {
    PacedFileSource source(
        wav_, [](std::span<const float>) { throw std::runtime_error("consumer gave up"); },
        {.speed = 10.0});
    source.start();
    source.wait();
    EXPECT_TRUE(source.finished());
    EXPECT_FALSE(source.reached_end());
    EXPECT_NE(source.error().find("consumer gave up"), std::string::npos);
}

TEST_F(PacedFileSourceTest, WaitWithoutStartReturnsAndStopBeforeStartPreventsIt) {
    std::int64_t samples = 0;
    PacedFileSource source(
        wav_, [&](std::span<const float> s) { samples += static_cast<std::int64_t>(s.size()); });
    source.wait();
    EXPECT_FALSE(source.finished());
    source.stop();
    EXPECT_TRUE(source.finished());
    source.start();
    source.wait();
    EXPECT_EQ(samples, 0);
}

TEST(PacedFileSource, MissingFileThrowsAudioFileError) {
    test::TempDir dir("earshot-paced");
    const fs::path missing = dir.path() / "no-such-file.wav";
    try {
        PacedFileSource source(missing, [](std::span<const float>) {});
        FAIL() << "no exception";
    } catch (const AudioFileError& e) {
        EXPECT_EQ(e.file(), missing);
    }
}

TEST(PacedFileSource, NotAudioThrowsAudioFileError) {
    test::TempDir dir("earshot-paced");
    const fs::path text = dir.path() / "notes.wav";
    std::FILE* file = std::fopen(text.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    std::fputs("these are not the samples you are looking for\n", file);
    std::fclose(file);
    EXPECT_THROW(PacedFileSource(text, [](std::span<const float>) {}), AudioFileError);
}

TEST_F(PacedFileSourceTest, SpeedMustBePositive) {
    for (const double speed : {0.0, -1.0, std::nan("")}) {
        EXPECT_THROW(PacedFileSource(wav_, [](std::span<const float>) {}, {.speed = speed}),
                     std::invalid_argument);
    }
}

}  // namespace
}  // namespace earshot::audio
