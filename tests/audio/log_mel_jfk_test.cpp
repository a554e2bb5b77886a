// Log-mel of real speech (jfk.wav, 11 s): frame counts, normalization range, and the silence
// padding of a 3000-frame window (reference §1.5 to §1.7).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "earshot/audio/log_mel.h"
#include "wav_file.h"

namespace earshot::audio {
namespace {

class LogMelJfk : public ::testing::Test {
protected:
    void SetUp() override {
        const auto path = std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";
        if (!std::filesystem::exists(path)) {
            GTEST_SKIP() << "the jfk.wav speech sample is not available at " << path;
        }
        const test::WavPcm16 wav = test::read_wav_pcm16(path);
        ASSERT_EQ(wav.sample_rate_hz, 16000);
        ASSERT_EQ(wav.channels, 1);
        samples_ = wav.samples;
    }

    std::vector<float> samples_;
};

float max_of(std::span<const float> values) { return *std::ranges::max_element(values); }
float min_of(std::span<const float> values) { return *std::ranges::min_element(values); }

TEST_F(LogMelJfk, FrameCounts) {
    const auto n = static_cast<std::int64_t>(samples_.size());
    ASSERT_EQ(n, 176000);  // 11.0 s
    // Centred STFT with the last frame dropped: floor(N / 160) frames.
    const LogMel whole = log_mel(samples_, 80);
    EXPECT_EQ(whole.frames, n / 160);
    EXPECT_EQ(whole.frames, 1100);
    // whisper.cpp's content length n_len_org = 1 + (N + 200 - 400) / 160 is one less: the frames
    // before the first one that reaches past the end.
    EXPECT_EQ(1 + (n + 200 - 400) / 160, 1099);
    // openai transcribe() appends 480000 zeros: content_frames = total - 3000 = floor(N / 160).
    EXPECT_EQ((n + 480000) / 160 - 3000, whole.frames);
}

TEST_F(LogMelJfk, WindowNormalization) {
    for (int mels : {80, 128}) {
        const LogMel mel = log_mel_window(samples_, mels);
        ASSERT_EQ(mel.mels, mels);
        ASSERT_EQ(mel.frames, 3000);
        ASSERT_EQ(mel.values.size(), static_cast<std::size_t>(mels) * 3000);

        // The raw frames of the silence-padded window, as the stream gives them.
        std::vector<float> padded(480000, 0.0f);
        std::ranges::copy(samples_, padded.begin());
        const std::vector<float> raw = raw_log_mel_frames(padded, mels);
        const float global_max = max_of(raw);

        const float top = max_of(mel.values);
        const float bottom = min_of(mel.values);
        EXPECT_EQ(top, (global_max + 4.0f) / 4.0f);
        EXPECT_GE(bottom, top - 2.0f - 1e-6f);
        EXPECT_LE(top, 1.5f);
        EXPECT_GE(bottom, -1.5f);
        EXPECT_GT(top, 0.5f) << "speech peaks well above the floor";

        // Frames 1102.. cover only padding (160 t - 200 >= 176000): zero power, log10 floor -10,
        // clamped to max - 8, normalized to (max - 4) / 4, not 0.0.
        const float silence = (global_max - 8.0f + 4.0f) / 4.0f;
        EXPECT_NEAR(silence, (global_max - 4.0f) / 4.0f, 1e-6f);
        EXPECT_EQ(bottom, silence);
        for (int m = 0; m < mels; ++m) {
            for (std::int64_t t = 1102; t < 3000; ++t) {
                ASSERT_EQ(mel.at(m, t), silence) << "mel " << m << " frame " << t;
            }
        }
        // Frame 1101 still sees 40 speech samples: not silence everywhere.
        bool frame_1101_has_signal = false;
        for (int m = 0; m < mels; ++m) frame_1101_has_signal |= mel.at(m, 1101) > silence;
        EXPECT_TRUE(frame_1101_has_signal);

        // Frames 0..1098 lie inside the speech: the same raw values as the unpadded signal's.
        const std::vector<float> whole = raw_log_mel_frames(samples_, mels);
        for (std::int64_t t = 0; t <= 1098; ++t) {
            for (int m = 0; m < mels; ++m) {
                const auto i = static_cast<std::size_t>(t * mels + m);
                ASSERT_EQ(raw[i], whole[i]) << "mel " << m << " frame " << t;
                ASSERT_EQ(mel.at(m, t), (std::max(raw[i], global_max - 8.0f) + 4.0f) / 4.0f);
            }
        }
    }
}

TEST_F(LogMelJfk, WindowCutsLongerInput) {
    // 5 s window of the 11 s file: the first 80000 samples, no padding frames at all.
    const LogMel mel = log_mel_window(samples_, 80, 500);
    ASSERT_EQ(mel.frames, 500);
    const std::span<const float> head(samples_.data(), 80000);
    const LogMel expected = log_mel(head, 80);
    EXPECT_EQ(mel.values, expected.values);
}

}  // namespace
}  // namespace earshot::audio
