// transcribe()'s on_segments callback on the embedded micro model: each window's new segments are
// reported as soon as that window is decoded (before the progress of that window and long before
// the call returns), and all reports together are transcript.segments.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "micro_model.h"
#include "npz_reader.h"

namespace earshot::decoding {
namespace {

namespace fs = std::filesystem;

TEST(LongFormSegmentsCallback, ReportsEachWindowsSegmentsAsItIsDecoded) {
    const fs::path dir = test::micro_model_dir();
    const fs::path fixture = fs::path(EARSHOT_TEST_GOLDEN_DIR) / "micro" / "parity.npz";
    ASSERT_TRUE(fs::exists(dir / "model.safetensors")) << dir;
    ASSERT_TRUE(fs::exists(fixture)) << fixture;
    const model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(dir);
    const tokenizer::Tokenizer tok =
        tokenizer::Tokenizer::load(dir, checkpoint.binding.values.dims.at("Vocab"));
    auto model = runtime::make_cpu_decoder_model(checkpoint);

    // One held-out sentence's window [80, Frames], said twice, then a window of the quietest
    // value as the appended silence: two windows of content.
    const std::map<std::string, test::NpyArray> npz = test::read_npz(fixture);
    const test::NpyArray& speech = npz.at("mel");
    ASSERT_EQ(speech.shape.size(), 2u);
    const int64_t mels = speech.shape[0];
    const int64_t frames = model->frames();
    ASSERT_EQ(speech.shape[1], frames);
    const std::vector<float> one = speech.as_f32();
    float quiet = one.at(0);
    for (float v : one) quiet = std::min(quiet, v);
    std::vector<float> values(static_cast<size_t>(mels * 3 * frames), quiet);
    for (int64_t m = 0; m < mels; ++m) {
        for (int copy = 0; copy < 2; ++copy) {
            std::copy_n(one.begin() + m * frames, frames,
                        values.begin() + m * 3 * frames + copy * frames);
        }
    }
    const backend::HostTensor mel = backend::HostTensor::f32({mels, 3 * frames}, values);

    TranscribeOptions options;
    options.decoding.beam_size = 1;
    options.decoding.temperatures = {0.0};
    std::vector<std::string> events;  // "segments N" and "progress" in the order they came
    std::vector<Segment> reported;
    const Transcript transcript = transcribe(
        *model, tok, mel, 2 * frames, options,
        [&](double /*fraction*/) { events.emplace_back("progress"); }, nullptr,
        [&](std::span<const Segment> added) {
            events.push_back("segments " + std::to_string(added.size()));
            reported.insert(reported.end(), added.begin(), added.end());
        });

    ASSERT_GE(transcript.segments.size(), 2u) << transcript.text;
    ASSERT_EQ(reported.size(), transcript.segments.size());
    for (size_t i = 0; i < reported.size(); ++i) {
        EXPECT_EQ(reported[i].text, transcript.segments[i].text) << i;
        EXPECT_DOUBLE_EQ(reported[i].start_s, transcript.segments[i].start_s) << i;
        EXPECT_DOUBLE_EQ(reported[i].end_s, transcript.segments[i].end_s) << i;
    }
    // The first window's segments come before its progress, and so before the second window.
    ASSERT_GE(events.size(), 3u);
    EXPECT_EQ(events[0].rfind("segments ", 0), 0u) << events[0];
    EXPECT_EQ(events[1], "progress");
    EXPECT_GE(std::count(events.begin(), events.end(), "progress"), 2);
    EXPECT_FALSE(reported.front().text.empty());
}

}  // namespace
}  // namespace earshot::decoding
