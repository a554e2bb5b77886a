// Taps during live dictation: a TapChannel in LiveOptions makes every update tap the asked values
// on the decoding thread and publish them, numbered, before the update reaches the front end;
// a reader on another thread sees the snapshots while the session runs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "earshot/core/live_controller.h"
#include "earshot/engine/backend/tap_channel.h"
#include "live_fixture.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kJfk = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";

TEST(LiveTaps, EveryDecodedUpdatePublishesItsTappedValues) {
    if (!fs::exists(kJfk) || !fs::exists(multilingual_tiktoken())) {
        GTEST_SKIP() << "shared whisper assets are absent (" << kJfk
                     << "): jfk.wav and the vocabulary are needed";
    }
    TempDir dir;
    const auto model = random_live_model(dir.path() / "small", RandomModelSize::small);
    auto channel = std::make_shared<backend::TapChannel>();
    const std::string encoder = "encoder_layers[0].forward";
    const std::string cross = "decoder_layers[1].encoder_attn.attend";
    channel->set_names({encoder, cross});

    app::LiveOptions options;
    options.input = kJfk;
    options.speed = 40.0;
    options.streaming.decoding.language = "en";
    options.taps = channel;
    UpdateLog log;
    // A reader on another thread, as the UI is: the update numbers it sees never go down.
    std::atomic<bool> reading{true};
    std::atomic<uint64_t> read_snapshots{0};
    std::thread reader([&] {
        uint64_t last = 0;
        while (reading.load()) {
            if (auto snapshot = channel->latest()) {
                EXPECT_GE(snapshot->update, last);
                if (snapshot->update != last) ++read_snapshots;
                last = snapshot->update;
            }
            std::this_thread::sleep_for(1ms);
        }
    });
    app::LiveController live(*model->model, model->tokenizer, options, log.sink());
    live.start();
    ASSERT_TRUE(live.wait_for(60s));
    live.stop();
    reading.store(false);
    reader.join();

    uint64_t last = 0;
    int64_t tapped_updates = 0;
    for (const auto& entry : log.entries()) {
        const uint64_t number = entry.update.tap_update;
        if (number == 0) continue;
        EXPECT_EQ(number, last + 1);  // every tapped update published once, in order
        last = number;
        ++tapped_updates;
    }
    ASSERT_GT(tapped_updates, 0);
    EXPECT_EQ(channel->published_updates(), last);
    EXPECT_GT(read_snapshots.load(), 0U);
    const auto snapshot = channel->latest();
    ASSERT_NE(snapshot, nullptr);
    EXPECT_EQ(snapshot->update, last);
    ASSERT_EQ(snapshot->values.size(), 2U);
    const auto& audio = snapshot->values[0];
    EXPECT_TRUE(audio.filled);
    EXPECT_EQ(audio.entry, "whisper::Model.listen");
    ASSERT_EQ(audio.tensor.shape().size(), 3U);  // [1, A, D]
    EXPECT_EQ(audio.tensor.dim(0), 1);
    const auto& attended = snapshot->values[1];
    EXPECT_TRUE(attended.filled);
    // The decoder's last run of that block: a step ([1, 1, D] at its position) or, when the
    // update ended at its prefill, the prefill ([1, S, D]).
    ASSERT_EQ(attended.tensor.shape().size(), 3U);
    EXPECT_EQ(attended.tensor.dim(2), audio.tensor.dim(2));
    EXPECT_TRUE(attended.entry == "whisper::Model.step" ||
                attended.entry == "whisper::Model.prefill")
        << attended.entry;
    EXPECT_TRUE(live.stats().error.empty()) << live.stats().error;
}

}  // namespace
}  // namespace earshot::test
