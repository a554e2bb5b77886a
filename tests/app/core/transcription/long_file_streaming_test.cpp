// The streaming long-form path (StreamingMelSource) against the whole-file one (whole_file_mel):
// the same windows bit for bit at every seek the loop can ask for, on jfk.wav and on a file of
// held-out sentences for the micro model, and the same transcript from the micro model both ways,
// while the source holds about one window of frames.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/transcription/streaming_mel_source.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/decoding/seek_loop.h"
#include "earshot/engine/decoding/speech_activity.h"
#include "micro_speech_file.h"
#include "temp_dir.h"
#include "whole_file_mel.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kJfk = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";

// Compares every window the two sources give at the seeks 0, step, 2 step, ... past the content,
// plus a few odd ones, in increasing order; and checks the streaming source's memory bound.
void expect_same_windows(const fs::path& file, int mels, int64_t frames, int64_t step) {
    const backend::HostTensor whole =
        app::whole_file_mel(audio::decode_file(file).samples, mels, frames);
    decoding::TensorMelSource reference(whole, whole.dim(1) - frames);
    std::optional<app::StreamingMelSource> streaming =
        app::StreamingMelSource::open(file, mels, frames, {}, nullptr);
    ASSERT_TRUE(streaming.has_value());
    ASSERT_EQ(streaming->content_frames(), reference.content_frames());
    ASSERT_GT(reference.content_frames(), frames) << file << " holds less than one window";
    EXPECT_EQ(streaming->mels(), mels);

    std::vector<int64_t> seeks;
    for (int64_t seek = 0; seek <= reference.content_frames() + frames; seek += step) {
        seeks.push_back(seek);
        seeks.push_back(seek);  // the same seek twice (language detection, then the first window)
        seeks.push_back(seek + 7);
    }
    int64_t most_held = 0;
    for (int64_t seek : seeks) {
        const backend::HostTensor a = reference.window(seek, frames);
        const backend::HostTensor b = streaming->window(seek, frames);
        ASSERT_EQ(a.shape(), b.shape());
        const std::span<const float> x = a.f32_values();
        const std::span<const float> y = b.f32_values();
        ASSERT_EQ(std::memcmp(x.data(), y.data(), x.size_bytes()), 0)
            << file << ": the windows at frame " << seek << " differ";
        most_held = std::max(most_held, streaming->held_frames());
    }
    // One window and at most one second of decoding ahead, never the file.
    EXPECT_LE(most_held, frames + 110);
    EXPECT_THROW((void)streaming->window(0, frames), std::logic_error);
}

TEST(LongFileStreaming, WindowsOfJfkAreTheWholeFileMelsBitForBit) {
    if (!fs::exists(kJfk)) GTEST_SKIP() << "shared whisper assets are absent (" << kJfk << ")";
    expect_same_windows(kJfk, 80, 600, 250);  // the micro model's 6 s windows
    expect_same_windows(kJfk, 128, 300, 97);  // large-v3's mels
}

class LongFileStreamingMicro : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        wav_ = write_three_sentences(dir_, why);
        if (wav_.empty()) GTEST_FAIL() << "cannot speak the sentences: " << why;
    }

    TempDir dir_{"earshot-long-file-streaming"};
    fs::path wav_;
};

TEST_F(LongFileStreamingMicro, WindowsAreTheWholeFileMelsBitForBit) {
    expect_same_windows(wav_, 80, 600, 311);
}

TEST_F(LongFileStreamingMicro, TranscriptIsTheWholeFileOne) {
    const std::unique_ptr<app::LoadedModel> loaded = app::load_model(micro_model_dir(), {});
    decoding::TranscribeOptions options;
    app::apply_model_defaults(*loaded, options);
    // The whole-file mel knows no speech activity: compare the model's own times.
    options.snap_times_to_speech = false;
    const auto mels = static_cast<int>(loaded->model->mels());
    const int64_t frames = loaded->model->frames();

    const backend::HostTensor whole =
        app::whole_file_mel(audio::decode_file(wav_).samples, mels, frames);
    std::vector<double> whole_progress;
    const decoding::Transcript expected = decoding::transcribe(
        *loaded->model, loaded->tokenizer, whole, whole.dim(1) - frames, options,
        [&](double fraction) { whole_progress.push_back(fraction); }, nullptr);

    std::optional<app::StreamingMelSource> streaming =
        app::StreamingMelSource::open(wav_, mels, frames, {}, nullptr);
    ASSERT_TRUE(streaming.has_value());
    std::vector<double> streaming_progress;
    const decoding::Transcript got = decoding::transcribe(
        *loaded->model, loaded->tokenizer, *streaming, options,
        [&](double fraction) { streaming_progress.push_back(fraction); }, nullptr);

    ASSERT_FALSE(expected.text.empty());
    EXPECT_EQ(got.text, expected.text);
    EXPECT_EQ(got.language, expected.language);
    ASSERT_EQ(got.segments.size(), expected.segments.size());
    for (size_t i = 0; i < got.segments.size(); ++i) {
        EXPECT_EQ(got.segments[i].text, expected.segments[i].text) << i;
        EXPECT_EQ(got.segments[i].tokens, expected.segments[i].tokens) << i;
        EXPECT_EQ(got.segments[i].start_s, expected.segments[i].start_s) << i;
        EXPECT_EQ(got.segments[i].end_s, expected.segments[i].end_s) << i;
        EXPECT_EQ(got.segments[i].avg_logprob, expected.segments[i].avg_logprob) << i;
    }
    EXPECT_EQ(streaming_progress, whole_progress);
    ASSERT_FALSE(streaming_progress.empty());
    EXPECT_EQ(streaming_progress.back(), 1.0);
}

// The first pass marks where the file is speech (the segment times snap to it): one run per
// sentence, on the sentence's sound, and nothing in the 1 s pauses or the silence around them.
TEST(LongFileStreamingSpeech, SpeechActivityHasOneRunPerSentenceOnItsSound) {
    SpeechOptions speech;
    speech.whole_sentences = true;
    speech.sentence_gap_s = 1.0;
    speech.lead_s = 0.7;
    speech.tail_s = 0.9;
    std::string why;
    const auto audio = speak_sentences(micro_heldout_words(3), speech, &why);
    ASSERT_TRUE(audio) << why;
    TempDir dir("earshot-speech-activity");
    const fs::path wav = dir.path() / "three.wav";
    write_wav_pcm16(wav, audio->samples);

    std::optional<app::StreamingMelSource> source =
        app::StreamingMelSource::open(wav, 80, 600, {}, nullptr);
    ASSERT_TRUE(source.has_value());
    const decoding::SpeechActivity* activity = source->speech_activity();
    ASSERT_NE(activity, nullptr);
    EXPECT_DOUBLE_EQ(activity->hop_s, 0.01);
    EXPECT_EQ(static_cast<int64_t>(activity->loud.size()), (source->samples() + 159) / 160)
        << "one per 10 ms hop, a last partial one included";
    const std::vector<decoding::SpeechRun> runs = decoding::speech_runs(*activity, 0.3);
    ASSERT_EQ(runs.size(), audio->sentences.size());
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto [from_s, to_s] = audio->sentences[i];
        std::printf("sentence %zu: %.2f-%.2f s, speech run %.2f-%.2f s\n", i, from_s, to_s,
                    runs[i].start_s, runs[i].end_s);
        EXPECT_NEAR(runs[i].start_s, from_s, 0.1) << "sentence " << i;
        EXPECT_NEAR(runs[i].end_s, to_s, 0.1) << "sentence " << i;
    }
}

}  // namespace
}  // namespace earshot::test
