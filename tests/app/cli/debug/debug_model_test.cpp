// `earshot debug encode` and `earshot debug logits` through the real executable: their .npy
// outputs equal the CPU backend's results in process, and bad input is one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli/debug/npy_file.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "run_process.h"
#include "small_checkpoint.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::app::read_npy;
using earshot::app::write_npy;
using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;
using earshot::test::TempDir;

class DebugModel : public ::testing::Test {
protected:
    void SetUp() override {
        earshot::model::RandomCheckpointOptions options = earshot::test::small_checkpoint_options();
        options.vocab = 600;
        options.frames = 200;
        options.max_tokens = 32;
        options.dtype = "f32";
        earshot::model::write_random_checkpoint(model_, options);
        // [80, 200], loud in its first frames so the conv padding matters.
        mel_values_.resize(80 * 200);
        for (size_t i = 0; i < mel_values_.size(); ++i) {
            const size_t frame = i % 200;
            mel_values_[i] = frame < 3 ? 3.0F : static_cast<float>(frame) / 200.0F - 0.5F;
        }
        const std::vector<int64_t> shape{80, 200};
        write_npy(mel_, mel_values_, shape);
    }

    TempDir temp_{"earshot-debug-model"};
    fs::path model_ = temp_.path() / "model";
    fs::path mel_ = temp_.path() / "mel.npy";
    std::vector<float> mel_values_;
};

std::string q(const fs::path& p) { return earshot::test::shell_quote(p.string()); }

TEST_F(DebugModel, EncodeWritesTheBackendsAudioStates) {
    const fs::path out = temp_.path() / "audio.npy";
    auto result = earshot::test::run_earshot("debug encode --model " + q(model_) + " --mel " +
                                             q(mel_) + " --out " + q(out));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto audio = read_npy(out);
    EXPECT_EQ(audio.shape, (std::vector<int64_t>{1, 100, 64}));
    CpuWhisper whisper(earshot::model::load_whisper_checkpoint(model_));
    HostTensor expected = whisper.encode(HostTensor::f32({1, 80, 200}, mel_values_));
    ASSERT_EQ(audio.f32.size(), expected.f32_values().size());
    for (size_t i = 0; i < audio.f32.size(); ++i) {
        ASSERT_EQ(audio.f32[i], expected.f32_values()[i]) << "at " << i;
    }
}

TEST_F(DebugModel, LogitsCoverEveryPosition) {
    const fs::path out = temp_.path() / "logits.npy";
    auto result = earshot::test::run_earshot("debug logits --model " + q(model_) + " --mel " +
                                             q(mel_) + " --tokens 7,42,599,3 --out " + q(out));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto logits = read_npy(out);
    ASSERT_EQ(logits.shape, (std::vector<int64_t>{4, 600}));
    CpuWhisper whisper(earshot::model::load_whisper_checkpoint(model_));
    whisper.listen(HostTensor::f32({1, 80, 200}, mel_values_));
    // The last row is what prefill over the same four tokens returns.
    HostTensor last = whisper.prefill(HostTensor::i32({1, 4}, {7, 42, 599, 3}));
    for (int64_t v = 0; v < 600; ++v) {
        EXPECT_NEAR(logits.f32[static_cast<size_t>(3 * 600 + v)], last.f32_values()[size_t(v)],
                    1e-4F)
            << "vocab " << v;
    }
}

TEST_F(DebugModel, BadInputIsOneLineAndExitTwo) {
    const fs::path out = temp_.path() / "x.npy";
    for (const std::string& args : {"debug logits --model " + q(model_) + " --mel " + q(mel_) +
                                        " --tokens 600 --out " + q(out),
                                    "debug logits --model " + q(model_) + " --mel " + q(mel_) +
                                        " --tokens 1,x --out " + q(out),
                                    "debug encode --model " + q(model_) + " --mel " +
                                        q(temp_.path() / "none.npy") + " --out " + q(out),
                                    "debug encode --model " + q(temp_.path() / "nothing") +
                                        " --mel " + q(mel_) + " --out " + q(out)}) {
        auto result = earshot::test::run_earshot(args);
        EXPECT_EQ(result.exit_code, 2) << args;
        EXPECT_EQ(result.out, "") << args;
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
        EXPECT_EQ(result.err.rfind("earshot debug ", 0), 0U) << result.err;
    }
    EXPECT_FALSE(fs::exists(out));
}

}  // namespace
