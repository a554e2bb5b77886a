// MelFrameQueue: frames and their info come out whole and in order (one thread and two), a full
// queue drops and counts, and records that wrap around the ring's end never split.
#include "earshot/audio/mel_frame_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

namespace earshot::audio {
namespace {

// Frame `index` of a test stream: value m is index * 128 + m (exact in float up to index
// 131071), so any mix-up shows.
std::vector<float> frame_values(std::int64_t index, int mels) {
    std::vector<float> frame(static_cast<std::size_t>(mels));
    for (int m = 0; m < mels; ++m) {
        frame[static_cast<std::size_t>(m)] = static_cast<float>(index * 128 + m);
    }
    return frame;
}

MelFrameInfo frame_info(std::int64_t index) {
    return {index % 3 == 0, -static_cast<float>(index % 97)};
}

// Pops one frame and checks that it is frame `index`.
void expect_frame(MelFrameQueue& queue, std::int64_t index) {
    std::vector<float> out(static_cast<std::size_t>(queue.mels()), -1.0f);
    MelFrameInfo info{};
    ASSERT_TRUE(queue.pop(out, info)) << "frame " << index;
    EXPECT_EQ(out, frame_values(index, queue.mels())) << "frame " << index;
    EXPECT_EQ(info.speech, frame_info(index).speech) << "frame " << index;
    EXPECT_EQ(info.level_dbfs, frame_info(index).level_dbfs) << "frame " << index;
}

TEST(MelFrameQueue, StartsEmpty) {
    MelFrameQueue queue(80, 10);
    EXPECT_EQ(queue.mels(), 80);
    EXPECT_EQ(queue.capacity_frames(), 10u);
    EXPECT_EQ(queue.size_frames(), 0u);
    EXPECT_EQ(queue.dropped_frames(), 0u);
    std::vector<float> out(80);
    MelFrameInfo info;
    EXPECT_FALSE(queue.pop(out, info));
}

TEST(MelFrameQueue, RejectsEmptyShapes) {
    EXPECT_THROW(MelFrameQueue(0, 10), std::invalid_argument);
    EXPECT_THROW(MelFrameQueue(80, 0), std::invalid_argument);
}

TEST(MelFrameQueue, FramesComeOutInOrderWithTheirInfo) {
    MelFrameQueue queue(128, 4);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(queue.push(frame_values(i, 128), frame_info(i)));
    EXPECT_EQ(queue.size_frames(), 3u);
    for (int i = 0; i < 3; ++i) expect_frame(queue, i);
    EXPECT_EQ(queue.size_frames(), 0u);
}

TEST(MelFrameQueue, FullQueueDropsAndCounts) {
    // 5 records of 82 floats: the ring rounds up to 512 floats, room for 6; the queue still holds
    // 5 frames only.
    MelFrameQueue queue(80, 5);
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(queue.push(frame_values(i, 80), frame_info(i)));
    EXPECT_FALSE(queue.push(frame_values(5, 80), frame_info(5)));
    EXPECT_FALSE(queue.push(frame_values(6, 80), frame_info(6)));
    EXPECT_EQ(queue.dropped_frames(), 2u);
    EXPECT_EQ(queue.size_frames(), 5u);
    expect_frame(queue, 0);
    EXPECT_TRUE(queue.push(frame_values(7, 80), frame_info(7)));
    for (int i : {1, 2, 3, 4, 7}) expect_frame(queue, i);
    EXPECT_EQ(queue.dropped_frames(), 2u);
}

TEST(MelFrameQueue, RecordsThatWrapAroundStayWhole) {
    // Records of 82 floats in a 1024-float ring: 1024 is no multiple of 82, so records straddle
    // the end of the buffer at ever different places as 1000 frames pass in uneven batches.
    MelFrameQueue queue(80, 12);
    std::int64_t pushed = 0;
    std::int64_t popped = 0;
    for (int round = 0; pushed < 1000; ++round) {
        const int batch = 1 + round % 12;
        for (int i = 0; i < batch; ++i, ++pushed) {
            ASSERT_TRUE(queue.push(frame_values(pushed, 80), frame_info(pushed)));
        }
        EXPECT_EQ(queue.size_frames(), static_cast<std::size_t>(pushed - popped));
        while (popped < pushed) expect_frame(queue, popped++);
    }
    EXPECT_EQ(queue.dropped_frames(), 0u);
}

TEST(MelFrameQueue, ProducerAndConsumerThreadsKeepOrderAndContent) {
    constexpr std::int64_t kFrames = 20000;
    constexpr int kMels = 80;
    MelFrameQueue queue(kMels, 16);
    std::thread producer([&queue] {
        for (std::int64_t i = 0; i < kFrames; ++i) {
            const std::vector<float> frame = frame_values(i, kMels);
            while (!queue.push(frame, frame_info(i))) std::this_thread::yield();
        }
    });
    std::vector<float> out(kMels);
    std::int64_t mismatches = 0;
    for (std::int64_t i = 0; i < kFrames;) {
        MelFrameInfo info{};
        if (!queue.pop(out, info)) {
            std::this_thread::yield();
            continue;
        }
        if (out != frame_values(i, kMels) || info.speech != frame_info(i).speech ||
            info.level_dbfs != frame_info(i).level_dbfs) {
            ++mismatches;
        }
        ++i;
    }
    producer.join();
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(queue.size_frames(), 0u);
}

TEST(MelFrameQueue, ProducerThatNeverWaitsLosesOnlyCountedFrames) {
    constexpr std::int64_t kFrames = 20000;
    constexpr int kMels = 16;
    MelFrameQueue queue(kMels, 4);
    std::atomic<bool> done{false};
    std::thread producer([&queue, &done] {
        for (std::int64_t i = 0; i < kFrames; ++i)
            queue.push(frame_values(i, kMels), frame_info(i));
        done.store(true);
    });
    std::vector<float> out(kMels);
    std::int64_t received = 0;
    std::int64_t last = -1;
    bool ordered = true;
    bool whole = true;
    for (;;) {
        const bool finished = done.load();
        MelFrameInfo info{};
        while (queue.pop(out, info)) {
            const auto index = static_cast<std::int64_t>(out[0]) / 128;
            ordered = ordered && index > last;
            whole = whole && out == frame_values(index, kMels) &&
                    info.level_dbfs == frame_info(index).level_dbfs;
            last = index;
            ++received;
        }
        if (finished) break;
        std::this_thread::yield();
    }
    producer.join();
    EXPECT_TRUE(ordered);
    EXPECT_TRUE(whole);
    EXPECT_EQ(received + static_cast<std::int64_t>(queue.dropped_frames()), kFrames);
}

}  // namespace
}  // namespace earshot::audio
