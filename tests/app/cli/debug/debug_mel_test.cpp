// `earshot debug mel` through the real executable: the .npy it writes for jfk.wav is the library's
// batch log-mel of one padded window, and bad inputs give exit code 2 with a one-line error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/debug/npy_file.h"
#include "earshot/audio/log_mel.h"
#include "run_process.h"
#include "temp_dir.h"
#include "wav_file.h"

namespace earshot::app {
namespace {

using test::run_earshot;
using test::shell_quote;

std::filesystem::path jfk_wav() {
    return std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";
}

TEST(DebugMel, JfkWindowEqualsTheLibrary) {
    if (!std::filesystem::exists(jfk_wav())) {
        GTEST_SKIP() << "the jfk.wav speech sample is not available at " << jfk_wav();
    }
    const test::TempDir dir;
    const auto out = dir.path() / "mel.npy";
    const auto result = run_earshot("debug mel --in " + shell_quote(jfk_wav().string()) +
                                    " --mels 80 --out " + shell_quote(out.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("[80, 3000]"), std::string::npos) << result.out;

    const NpyArray mel = read_npy(out);
    ASSERT_EQ(mel.dtype, NpyDtype::f32);
    ASSERT_EQ(mel.shape, (std::vector<std::int64_t>{80, 3000}));
    // jfk.wav is 16 kHz mono s16le: the decoder's samples are the PCM values / 32768.
    const std::vector<float> samples = test::read_wav_pcm16(jfk_wav()).samples;
    const audio::LogMel expected = audio::log_mel_window(samples, 80, 3000);
    ASSERT_EQ(mel.f32.size(), expected.values.size());
    float max_diff = 0.0f;
    for (std::size_t i = 0; i < expected.values.size(); ++i) {
        max_diff = std::max(max_diff, std::abs(mel.f32[i] - expected.values[i]));
    }
    EXPECT_EQ(max_diff, 0.0f);
}

TEST(DebugMel, ShorterWindowWith128Mels) {
    if (!std::filesystem::exists(jfk_wav())) {
        GTEST_SKIP() << "the jfk.wav speech sample is not available at " << jfk_wav();
    }
    const test::TempDir dir;
    const auto out = dir.path() / "mel128.npy";
    const auto result = run_earshot("debug mel --in " + shell_quote(jfk_wav().string()) +
                                    " --mels 128 --frames 500 --out " + shell_quote(out.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const NpyArray mel = read_npy(out);
    ASSERT_EQ(mel.shape, (std::vector<std::int64_t>{128, 500}));
    const std::vector<float> samples = test::read_wav_pcm16(jfk_wav()).samples;
    EXPECT_EQ(mel.f32, audio::log_mel_window(samples, 128, 500).values);
}

TEST(DebugMel, BadInputsAreOneLineErrors) {
    const test::TempDir dir;
    const auto out = shell_quote((dir.path() / "x.npy").string());
    const auto not_audio = dir.path() / "notes.txt";
    std::ofstream(not_audio) << "not audio at all\n";
    auto r = run_earshot("debug mel --in " + shell_quote(not_audio.string()) + " --out " + out);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.npy"));

    r = run_earshot("debug mel --in " + shell_quote((dir.path() / "missing.wav").string()) +
                    " --out " + out);
    EXPECT_EQ(r.exit_code, 2);
    if (std::filesystem::exists(jfk_wav())) {
        r = run_earshot("debug mel --in " + shell_quote(jfk_wav().string()) + " --mels 64 --out " +
                        out);
        EXPECT_EQ(r.exit_code, 2) << "only 80 or 128 mels";
        r = run_earshot("debug mel --in " + shell_quote(jfk_wav().string()) + " --frames 0 --out " +
                        out);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_NE(r.err.find("--frames"), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace earshot::app
