// The CUDA backend against the CPU backend at large-v3's width (D 1280, 20 heads, 128 mels, 3000
// frames, the 51866-token vocabulary; 2 encoder and 2 decoder layers, f16): encoder states,
// prefill logits, steps at positions 8 and 300 and a beam of 5. It reaches what the smaller
// parity shapes do not: one-query attention over 1500 audio keys, every flash-attention tile of
// a window and vocabulary-wide logits. A GPU runs it in seconds (tests/gpu/session.sh,
// suite_wide); the emulator would take hours, so cuda_backend_emulated runs only its narrow twin
// (the same moves on a small model), which checks the test itself.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using namespace earshot::test::backend_data;
using earshot::backend::CpuWhisper;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;

// As BackendParityOnCudaDevice: f16 weights and activations against the f32 CPU backend.
constexpr double kEncoderTolerance = 2e-3;
constexpr double kLogitsTolerance = 1e-2;
constexpr int64_t kBeam = 5;
constexpr int64_t kShortPrefill = 8;   // then a step at position 8
constexpr int64_t kLongPrefill = 300;  // then a step at position 300

struct WideShape {
    std::string name;
    earshot::model::RandomCheckpointOptions options;
};

void PrintTo(const WideShape& shape, std::ostream* os) { *os << shape.name; }

WideShape wide_shape(std::string name, int64_t mels, int64_t d, int64_t heads, int64_t vocab,
                     int64_t frames, int64_t max_tokens) {
    WideShape shape{std::move(name), {}};
    auto& o = shape.options;
    o.mels = mels;
    o.d = d;
    o.heads = heads;
    o.enc_layers = 2;
    o.dec_layers = 2;
    o.vocab = vocab;
    o.frames = frames;
    o.max_tokens = max_tokens;
    o.dtype = "f16";
    o.seed = 31;
    return shape;
}

class WideParityOnCudaDevice : public testing::TestWithParam<WideShape> {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        earshot::model::write_random_checkpoint(dir_.path(), GetParam().options);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
    }

    // The GPU's logits against the CPU's: relative error within kLogitsTolerance, and the same
    // best token in at least `agreement` of the rows.
    void expect_logits_match(const HostTensor& got, const HostTensor& want, double agreement,
                             const std::string& what) {
        const int64_t vocab = GetParam().options.vocab;
        ASSERT_EQ(got.shape(), want.shape()) << what;
        const double error = relative_error(got.f32_values(), want.f32_values());
        const int64_t rows = static_cast<int64_t>(want.f32_values().size()) / vocab;
        int64_t same = 0;
        for (int64_t r = 0; r < rows; ++r) {
            same += argmax(row_of(got.f32_values(), r, vocab)) ==
                            argmax(row_of(want.f32_values(), r, vocab))
                        ? 1
                        : 0;
        }
        std::printf("%s %s: logits relative error %.3g, same best token in %lld of %lld rows\n",
                    GetParam().name.c_str(), what.c_str(), error, static_cast<long long>(same),
                    static_cast<long long>(rows));
        EXPECT_LE(error, kLogitsTolerance) << what;
        EXPECT_GE(static_cast<double>(same), agreement * static_cast<double>(rows)) << what;
    }

    earshot::test::TempDir dir_{"earshot-cuda-wide-parity"};
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
};

TEST_P(WideParityOnCudaDevice, EncoderPrefillStepsAndBeamMatchTheCpu) {
    const auto& o = GetParam().options;
    CpuWhisper cpu(*checkpoint_, 1);
    CudaWhisper gpu(*checkpoint_, 1);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 0);
    const HostTensor want_audio = cpu.listen(mel);
    const HostTensor got_audio = gpu.listen(mel);
    ASSERT_EQ(got_audio.shape(), (std::vector<int64_t>{1, o.frames / 2, o.d}));
    ASSERT_EQ(got_audio.shape(), want_audio.shape());
    const double audio_error = relative_error(got_audio.f32_values(), want_audio.f32_values());
    std::printf("%s: encoder states relative error %.3g\n", GetParam().name.c_str(), audio_error);
    EXPECT_LE(audio_error, kEncoderTolerance);

    // Prefill of 8 tokens, a step at position 8, then a beam of 5 rows stepped at 9, reordered
    // and stepped at 10.
    const auto tokens = random_tokens(1, kLongPrefill + 1, o.vocab, 9);
    expect_logits_match(gpu.prefill(token_tensor(tokens, 0, kShortPrefill)),
                        cpu.prefill(token_tensor(tokens, 0, kShortPrefill)), 1.0, "prefill 8");
    const HostTensor at_8 = token_tensor(tokens, kShortPrefill, kShortPrefill + 1);
    expect_logits_match(gpu.step(at_8, kShortPrefill), cpu.step(at_8, kShortPrefill), 1.0,
                        "step at 8");
    cpu.expand_batch(kBeam);
    gpu.expand_batch(kBeam);
    const auto beam = random_tokens(kBeam, 2, o.vocab, 10);
    const HostTensor at_9 = token_tensor(beam, 0, 1);
    expect_logits_match(gpu.step(at_9, 9), cpu.step(at_9, 9), 0.8, "beam step at 9");
    const std::vector<int64_t> order = {4, 4, 0, 2, 1};
    cpu.reorder_batch(order);
    gpu.reorder_batch(order);
    const HostTensor at_10 = token_tensor(beam, 1, 2);
    expect_logits_match(gpu.step(at_10, 10), cpu.step(at_10, 10), 0.8, "beam step at 10");

    // One row again (the caches zeroed, so the audio is listened to again): prefill of 300
    // tokens and a step at position 300.
    cpu.resize_batch(1);
    gpu.resize_batch(1);
    cpu.listen(mel);
    gpu.listen(mel);
    expect_logits_match(gpu.prefill(token_tensor(tokens, 0, kLongPrefill)),
                        cpu.prefill(token_tensor(tokens, 0, kLongPrefill)), 1.0, "prefill 300");
    const HostTensor at_300 = token_tensor(tokens, kLongPrefill, kLongPrefill + 1);
    expect_logits_match(gpu.step(at_300, kLongPrefill), cpu.step(at_300, kLongPrefill), 1.0,
                        "step at 300");
}

// LargeV3Width is for a GPU (excluded from cuda_backend_emulated); Narrow makes the same moves on
// a small model, quick on the emulator.
INSTANTIATE_TEST_SUITE_P(
    Shapes, WideParityOnCudaDevice,
    testing::Values(wide_shape("LargeV3Width", 128, 1280, 20, 51866, 3000, 448),
                    wide_shape("Narrow", 80, 64, 4, 700, 200, 320)),
    [](const testing::TestParamInfo<WideShape>& shape) { return shape.param.name; });

}  // namespace
