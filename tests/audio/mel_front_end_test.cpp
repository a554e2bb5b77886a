// MelFrontEnd: the queued frames equal raw_log_mel_frames for every chunking, floor(L / 160) of
// them after finish(), each carrying the VAD decision and level of its own hop, emitted as soon as
// their samples exist.
#include "earshot/audio/mel_front_end.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <stdexcept>
#include <vector>

#include "earshot/audio/log_mel.h"
#include "room_noise.h"

namespace earshot::audio {
namespace {

constexpr int kMels = 80;
constexpr std::size_t kHop = 160;

// 2.5 s of room noise with two 1 kHz bursts (0.5-0.9 s and 1.6-2.2 s) at -20 dBFS, plus 77 samples:
// the VAD flags change along the way and the signal ends on a partial hop.
std::vector<float> test_signal() {
    std::vector<float> x = test::room_noise(2.5, 7);
    x.resize(x.size() + 77, 0.001f);
    auto burst = [&x](double from_s, double to_s) {
        for (auto n = static_cast<std::size_t>(from_s * 16000);
             n < static_cast<std::size_t>(to_s * 16000); ++n) {
            x[n] += static_cast<float>(0.1414 * std::sin(2 * std::numbers::pi * 1000.0 *
                                                         static_cast<double>(n) / 16000.0));
        }
    };
    burst(0.5, 0.9);
    burst(1.6, 2.2);
    return x;
}

struct Popped {
    std::vector<float> frames;  // [Frames][Mels]
    std::vector<MelFrameInfo> infos;
};

Popped pop_all(MelFrameQueue& queue) {
    Popped out;
    std::vector<float> frame(kMels);
    MelFrameInfo info;
    while (queue.pop(frame, info)) {
        out.frames.insert(out.frames.end(), frame.begin(), frame.end());
        out.infos.push_back(info);
    }
    return out;
}

TEST(MelFrontEnd, FramesEqualTheBatchFramesForEveryChunking) {
    const std::vector<float> x = test_signal();
    const std::vector<float> expected = raw_log_mel_frames(x, kMels);
    const std::size_t frames = x.size() / kHop;
    ASSERT_EQ(expected.size(), frames * kMels);

    // The reference decisions: one EnergyVad over the whole hops, then the partial one.
    EnergyVad vad;
    std::vector<MelFrameInfo> hop_infos;
    for (std::size_t t = 0; t < frames; ++t) {
        const bool speech = vad.push_hop(std::span(x).subspan(t * kHop, kHop));
        hop_infos.push_back({speech, static_cast<float>(vad.level_dbfs())});
    }
    std::size_t speech_hops = 0;
    for (const auto& info : hop_infos) speech_hops += info.speech ? 1u : 0u;
    // The bursts (40 and 60 hops), each followed by 30 hops of hangover; none of the noise.
    ASSERT_EQ(speech_hops, 160u);
    const bool last_speech = vad.push_hop(std::span(x).subspan(frames * kHop));
    const auto last_level = static_cast<float>(vad.level_dbfs());

    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, kHop, std::size_t{4000}}) {
        SCOPED_TRACE(chunk);
        MelFrameQueue queue(kMels, frames + 8);
        MelFrontEnd front_end(kMels, queue);
        for (std::size_t at = 0; at < x.size(); at += chunk) {
            front_end.push(std::span(x).subspan(at, std::min(chunk, x.size() - at)));
        }
        front_end.finish();
        EXPECT_EQ(front_end.frames_emitted(), static_cast<std::int64_t>(frames));
        EXPECT_EQ(queue.dropped_frames(), 0u);
        const Popped popped = pop_all(queue);
        ASSERT_EQ(popped.infos.size(), frames);
        EXPECT_EQ(popped.frames, expected);
        std::size_t mismatched = 0;
        for (std::size_t t = 0; t < frames; ++t) {
            mismatched += popped.infos[t].speech != hop_infos[t].speech ||
                                  popped.infos[t].level_dbfs != hop_infos[t].level_dbfs
                              ? 1u
                              : 0u;
        }
        EXPECT_EQ(mismatched, 0u);
        // The meter shows the last (partial) hop, judged as it is.
        EXPECT_EQ(front_end.level_dbfs(), last_level);
        EXPECT_EQ(front_end.speech(), last_speech);
    }
}

TEST(MelFrontEnd, FrameCountAfterFinishIsWholeHops) {
    for (const std::size_t length : {0u, 1u, 159u, 160u, 200u, 201u, 399u, 3333u, 16000u}) {
        SCOPED_TRACE(length);
        const std::vector<float> x =
            test::white_noise(static_cast<double>(length) / 16000.0, -30, 3);
        ASSERT_EQ(x.size(), length);
        MelFrameQueue queue(kMels, 200);
        MelFrontEnd front_end(kMels, queue);
        front_end.push(x);
        front_end.finish();
        EXPECT_EQ(front_end.frames_emitted(), static_cast<std::int64_t>(length / kHop));
        EXPECT_EQ(queue.size_frames(), length / kHop);
        front_end.finish();  // a second finish() adds nothing
        EXPECT_EQ(front_end.frames_emitted(), static_cast<std::int64_t>(length / kHop));
    }
}

TEST(MelFrontEnd, FramesLeaveAsSoonAsTheirSamplesExist) {
    const std::vector<float> x = test::white_noise(1.0, -30, 5);
    MelFrameQueue queue(kMels, 200);
    MelFrontEnd front_end(kMels, queue);
    // Frame t needs samples up to 160 t + 200 (frame 0 needs 201).
    front_end.push(std::span(x).first(200));
    EXPECT_EQ(front_end.frames_emitted(), 0);
    front_end.push(std::span(x).subspan(200, 1));
    EXPECT_EQ(front_end.frames_emitted(), 1);
    front_end.push(std::span(x).subspan(201, 160 * 9 - 2));  // up to 160 * 9 + 199
    EXPECT_EQ(front_end.frames_emitted(), 9);
    front_end.push(std::span(x).subspan(160 * 9 + 199, 1));
    EXPECT_EQ(front_end.frames_emitted(), 10);
    EXPECT_EQ(queue.size_frames(), 10u);
}

TEST(MelFrontEnd, FullQueueDropsButCountsEveryFrame) {
    const std::vector<float> x = test::white_noise(1.0, -30, 9);
    MelFrameQueue queue(kMels, 10);
    MelFrontEnd front_end(kMels, queue);
    front_end.push(x);
    front_end.finish();
    EXPECT_EQ(front_end.frames_emitted(), 100);
    EXPECT_EQ(queue.size_frames(), 10u);
    EXPECT_EQ(queue.dropped_frames(), 90u);
    // The 10 queued frames are the first 10.
    const std::vector<float> expected = raw_log_mel_frames(x, kMels);
    const Popped popped = pop_all(queue);
    EXPECT_EQ(popped.frames, std::vector<float>(expected.begin(), expected.begin() + 10 * kMels));
}

TEST(MelFrontEnd, ResetStartsANewSignal) {
    const std::vector<float> x = test::white_noise(0.5, -30, 13);
    MelFrameQueue queue(kMels, 200);
    MelFrontEnd front_end(kMels, queue);
    front_end.push(x);
    front_end.finish();
    pop_all(queue);
    front_end.reset();
    EXPECT_EQ(front_end.frames_emitted(), 0);
    front_end.push(x);
    front_end.finish();
    EXPECT_EQ(pop_all(queue).frames, raw_log_mel_frames(x, kMels));
}

TEST(MelFrontEnd, RejectsAQueueOfOtherFrames) {
    MelFrameQueue queue(128, 10);
    EXPECT_THROW(MelFrontEnd(kMels, queue), std::invalid_argument);
    EnergyVadOptions other_hop;
    other_hop.hop_samples = 320;
    EXPECT_THROW(MelFrontEnd(128, queue, other_hop), std::invalid_argument);
}

}  // namespace
}  // namespace earshot::audio
