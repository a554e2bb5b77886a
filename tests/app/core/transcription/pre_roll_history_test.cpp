// PreRollHistory: the newest samples survive, oldest first, across wrap-around and pushes longer
// than the ring.
#include "earshot/audio/pre_roll_history.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace earshot::audio {
namespace {

std::vector<float> ramp(float from, std::size_t count) {
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), from);
    return values;
}

std::vector<float> kept(const PreRollHistory& history) {
    std::vector<float> out;
    history.copy_to(out);
    return out;
}

TEST(PreRollHistory, KeepsEverythingUntilFull) {
    PreRollHistory history(8);
    history.push(ramp(1, 3));
    history.push(ramp(4, 2));
    EXPECT_EQ(history.size(), 5U);
    EXPECT_EQ(kept(history), ramp(1, 5));
}

TEST(PreRollHistory, KeepsTheNewestAcrossWrapAround) {
    PreRollHistory history(8);
    for (float start = 1; start < 40; start += 3) history.push(ramp(start, 3));  // 1 .. 39
    EXPECT_EQ(history.size(), 8U);
    EXPECT_EQ(kept(history), ramp(32, 8));
}

TEST(PreRollHistory, APushLongerThanTheRingKeepsItsTail) {
    PreRollHistory history(8);
    history.push(ramp(1, 5));
    history.push(ramp(100, 20));
    EXPECT_EQ(kept(history), ramp(112, 8));
}

TEST(PreRollHistory, ClearForgetsAndZeroCapacityKeepsNothing) {
    PreRollHistory history(4);
    history.push(ramp(1, 3));
    history.clear();
    EXPECT_TRUE(kept(history).empty());
    history.push(ramp(7, 2));
    EXPECT_EQ(kept(history), ramp(7, 2));
    PreRollHistory off(0);
    off.push(ramp(1, 3));
    EXPECT_EQ(off.size(), 0U);
    EXPECT_TRUE(kept(off).empty());
}

}  // namespace
}  // namespace earshot::audio
