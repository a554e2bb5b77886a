// Tapped values' statistics, histograms and slices (tensor_statistics.h) on values worked out by
// hand, and TapChannel's hand-over between a decoding thread and a reader.
#include "earshot/engine/backend/tensor_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "earshot/engine/backend/tap_channel.h"

using earshot::backend::HostTensor;

namespace {

TEST(TensorStatistics, SummaryCountsNonFiniteAndHalfRange) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    // Finite: 1, -3, 70000, 2 -> mean 17500, rms sqrt((1 + 9 + 4.9e9 + 4) / 4).
    const std::vector<float> values = {1.0F, -3.0F, nan, 70000.0F, inf, -inf, 2.0F};
    const auto stats = earshot::backend::compute_statistics(values);
    EXPECT_EQ(stats.count, 7);
    EXPECT_EQ(stats.finite_count, 4);
    EXPECT_EQ(stats.nan_count, 1);
    EXPECT_EQ(stats.inf_count, 2);
    EXPECT_EQ(stats.outside_f16_count, 1);
    EXPECT_DOUBLE_EQ(stats.min, -3.0);
    EXPECT_DOUBLE_EQ(stats.max, 70000.0);
    EXPECT_DOUBLE_EQ(stats.mean, 17500.0);
    EXPECT_DOUBLE_EQ(stats.rms, std::sqrt((1.0 + 9.0 + 4.9e9 + 4.0) / 4.0));
    const double var = ((1 - 17500.0) * (1 - 17500.0) + (-3 - 17500.0) * (-3 - 17500.0) +
                        (70000 - 17500.0) * (70000 - 17500.0) + (2 - 17500.0) * (2 - 17500.0)) /
                       4.0;
    EXPECT_NEAR(stats.std, std::sqrt(var), 1e-9 * std::sqrt(var));
    // 65504 is half precision's largest finite value: inside.
    EXPECT_EQ(earshot::backend::compute_statistics(std::vector<float>{65504.0F, -65520.0F})
                  .outside_f16_count,
              1);
}

TEST(TensorStatistics, HistogramBinsEqualWidths) {
    const std::vector<float> values = {0.0F, 0.1F, 0.5F, 0.99F, 1.0F, 2.0F, NAN};
    const auto h = earshot::backend::compute_histogram(values, 4);  // over 0 .. 2
    EXPECT_DOUBLE_EQ(h.low, 0.0);
    EXPECT_DOUBLE_EQ(h.high, 2.0);
    EXPECT_DOUBLE_EQ(h.bin_width(), 0.5);
    EXPECT_EQ(h.counts, (std::vector<int64_t>{2, 2, 1, 1}));  // 2.0 in the closed last bin
    const auto ranged = earshot::backend::compute_histogram(values, 2, 0.25, 0.75);
    EXPECT_EQ(ranged.counts, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(ranged.below, 2);
    EXPECT_EQ(ranged.above, 3);
    EXPECT_THROW(earshot::backend::compute_histogram(values, 0), std::invalid_argument);
}

TEST(TensorStatistics, SlicesSplitAttentionByHead) {
    // [B 2, Heads 3, N 2, Dh 2]: value = 1000 b + 100 h + 10 n + d.
    std::vector<float> v;
    for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 3; ++h)
            for (int n = 0; n < 2; ++n)
                for (int d = 0; d < 2; ++d)
                    v.push_back(static_cast<float>(1000 * b + 100 * h + 10 * n + d));
    const HostTensor attention = HostTensor::f32({2, 3, 2, 2}, v);
    EXPECT_TRUE(earshot::backend::attention_shaped(attention.shape()));
    EXPECT_EQ(earshot::backend::default_heads(attention.shape()), 3);
    const auto slice = earshot::backend::extract_slice(attention, {.batch_row = 1, .head = 2});
    EXPECT_EQ(slice.rows, 2);
    EXPECT_EQ(slice.cols, 2);
    EXPECT_EQ(slice.values, (std::vector<float>{1200, 1201, 1210, 1211}));
    EXPECT_EQ(slice.description, "batch row 1, head 2: [2, 2]");
    EXPECT_THROW(earshot::backend::extract_slice(attention, {.head = 3}), std::out_of_range);

    // [B 1, N 2, D 6] split into 3 heads of 2: head 1 is columns 2 and 3.
    const HostTensor merged =
        HostTensor::f32({1, 2, 6}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
    const auto head = earshot::backend::extract_slice(merged, {.head = 1, .heads = 3});
    EXPECT_EQ(head.values, (std::vector<float>{2, 3, 12, 13}));
    const auto whole = earshot::backend::extract_slice(merged, {});
    EXPECT_EQ(whole.rows, 2);
    EXPECT_EQ(whole.cols, 6);
    EXPECT_THROW(earshot::backend::extract_slice(merged, {.heads = 4}), std::invalid_argument);
    EXPECT_THROW(earshot::backend::extract_slice(merged, {.batch_row = 1}), std::out_of_range);
}

TEST(TapChannel, HandsSnapshotsOverWithRisingUpdateNumbers) {
    earshot::backend::TapChannel channel;
    earshot::backend::TapSet taps;
    EXPECT_FALSE(channel.prepare(taps));
    EXPECT_EQ(channel.latest(), nullptr);
    channel.set_names({"encoder_layers[0].forward"});
    ASSERT_TRUE(channel.prepare(taps));
    ASSERT_EQ(taps.names(), (std::vector<std::string>{"encoder_layers[0].forward"}));
    // What a run leaves in the set, published after the update; the reader runs meanwhile.
    std::thread reader([&] {
        uint64_t seen = 0;
        while (seen < 50) {
            if (auto snapshot = channel.latest()) {
                EXPECT_GE(snapshot->update, seen);
                seen = snapshot->update;
                ASSERT_EQ(snapshot->values.size(), 1U);
                EXPECT_EQ(snapshot->values[0].tensor.f32_values()[0],
                          static_cast<float>(snapshot->update));
            }
        }
    });
    for (int update = 1; update <= 50; ++update) {
        channel.prepare(taps);
        auto& value = taps.value_at(0);
        value.tensor = HostTensor::f32({1}, static_cast<float>(update));
        value.filled = true;
        channel.publish(taps);
    }
    reader.join();
    EXPECT_EQ(channel.published_updates(), 50U);
    // A name added keeps the value of the name still asked for.
    channel.set_names({"conv1d", "encoder_layers[0].forward"});
    channel.prepare(taps);
    ASSERT_EQ(taps.values().size(), 2U);
    EXPECT_FALSE(taps.values()[0].filled);
    EXPECT_TRUE(taps.values()[1].filled);
}

}  // namespace

namespace {

// Publishing reuses the buffers of the snapshot before the latest once no reader holds it (no
// allocation per update); a snapshot a reader still holds is never written to.
TEST(TapChannel, RefillsASnapshotNoReaderHolds) {
    earshot::backend::TapChannel channel;
    channel.set_names({"encoder_layers[0].forward"});
    earshot::backend::TapSet taps;
    ASSERT_TRUE(channel.prepare(taps));
    auto publish = [&](float v) {
        auto& value = taps.value_at(0);
        value.filled = true;
        value.tensor = HostTensor::f32({1, 1500, 64}, v);
        return channel.publish(taps);
    };
    publish(1.0F);
    const float* first = channel.latest()->values[0].tensor.f32_values().data();
    publish(2.0F);
    publish(3.0F);  // refills the first: nobody holds it
    const auto third = channel.latest();
    EXPECT_EQ(third->update, 3U);
    EXPECT_EQ(third->values[0].tensor.f32_values().data(), first);
    EXPECT_EQ(third->values[0].tensor.f32_values()[1234], 3.0F);

    // A reader keeps update 3 while 4 and 5 are published: 5 gets new buffers, 3 stays 3.
    publish(4.0F);
    publish(5.0F);
    EXPECT_EQ(channel.latest()->update, 5U);
    EXPECT_NE(channel.latest()->values[0].tensor.f32_values().data(),
              third->values[0].tensor.f32_values().data());
    EXPECT_EQ(third->update, 3U);
    EXPECT_EQ(third->values[0].tensor.f32_values()[1234], 3.0F);
    EXPECT_EQ(channel.latest()->values[0].tensor.f32_values()[1234], 5.0F);
}

}  // namespace
