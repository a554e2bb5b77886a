// The CUDA model's decoder caches under beam search, against the CPU backend: the rows of a beam
// read one shared copy of the cross caches (the device memory a beam adds is the self-attention
// caches' rows and one cache's moved rows, nothing of the cross caches, as the emulated device
// counts it), the caches keep their buffers from window to window so that a later beam window
// replays its captured graphs and captures none, and the logits and cross-attention weights of
// the shared rows are the CPU's. EARSHOT_CUDA_OLD_KERNELS=cross_caches gives each row its own
// copy again, with the same logits.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using earshot::test::OldKernelsVariable;

using namespace earshot::test::backend_data;
using earshot::backend::CpuWhisper;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::emulator_allocated_bytes;
using earshot::test::emulator_graph_captures;
using earshot::test::emulator_graph_launches;

// As BackendParityOnCudaDevice: f16 weights and activations against the f32 CPU backend.
constexpr double kLogitsTolerance = 1e-2;
constexpr int64_t kBeam = 5;
constexpr int64_t kPrompt = 2;
constexpr int64_t kSteps = 4;  // positions kPrompt .. kPrompt + kSteps - 1, reordered after one

struct Shape {
    std::string name;
    earshot::model::RandomCheckpointOptions options;
};

void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

Shape make_shape(std::string name, int64_t d, int64_t heads, int64_t frames, int64_t max_tokens,
                 std::string dtype) {
    Shape shape{std::move(name), {}};
    auto& o = shape.options;
    o.mels = 80;
    o.d = d;
    o.heads = heads;
    o.enc_layers = 2;
    o.dec_layers = 2;
    o.vocab = 512;
    o.frames = frames;
    o.max_tokens = max_tokens;
    o.dtype = std::move(dtype);
    o.seed = 41;
    return shape;
}

class BeamCachesOnCudaDevice : public ::testing::TestWithParam<Shape> {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        earshot::model::write_random_checkpoint(dir_.path(), GetParam().options);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
        const auto& o = GetParam().options;
        const int64_t dh = o.d / o.heads;
        // One row of one cache, f16 on the device: [Heads, MaxTokens, Dh] and [Heads, Audio, Dh].
        self_row_bytes_ = o.heads * o.max_tokens * dh * 2;
        cross_row_bytes_ = o.heads * (o.frames / 2) * dh * 2;
        layers_ = o.dec_layers;
    }

    // One beam window on both backends doing the same moves (the decoder's: back to one row,
    // listen, prompt, expand, steps with a reorder): the worst relative error of the logits.
    double beam_window(CpuWhisper& cpu, CudaWhisper& gpu, int variant) {
        const auto& o = GetParam().options;
        if (cpu.batch() != 1) cpu.resize_batch(1);
        if (gpu.batch() != 1) gpu.resize_batch(1);
        const HostTensor mel = test_mel(1, o.mels, o.frames, variant);
        cpu.listen(mel);
        gpu.listen_on_device(mel);
        const auto prompt = random_tokens(1, kPrompt, o.vocab, static_cast<uint32_t>(10 + variant));
        double worst = relative_error(gpu.prefill(token_tensor(prompt, 0, kPrompt)).f32_values(),
                                      cpu.prefill(token_tensor(prompt, 0, kPrompt)).f32_values());
        cpu.expand_batch(kBeam);
        gpu.expand_batch(kBeam);
        const auto rows =
            random_tokens(kBeam, kSteps, o.vocab, static_cast<uint32_t>(20 + variant));
        const std::vector<int64_t> order = {4, 4, 0, 2, 1};
        for (int64_t i = 0; i < kSteps; ++i) {
            const auto pos = static_cast<int32_t>(kPrompt + i);
            const HostTensor tokens = token_tensor(rows, i, i + 1);
            const HostTensor want = cpu.step(tokens, pos);
            const HostTensor got = gpu.step(tokens, pos);
            EXPECT_EQ(got.shape(), want.shape());
            worst = std::max(worst, relative_error(got.f32_values(), want.f32_values()));
            if (i == 1) {
                cpu.reorder_batch(order);
                gpu.reorder_batch(order);
            }
        }
        return worst;
    }

    earshot::test::TempDir dir_{"earshot-cuda-beam-caches"};
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
    int64_t self_row_bytes_ = 0, cross_row_bytes_ = 0, layers_ = 0;
};

// Expanding to a beam of 5 adds 4 rows of every self-attention cache and nothing of the cross
// caches (before: 4 rows of those too, 4 x 245 MB on large-v3); reordering adds room for the
// moved rows of one cache (before: a spare copy of every cache). Rows still read the right audio.
TEST_P(BeamCachesOnCudaDevice, BeamRowsShareOneCopyOfTheCrossCaches) {
    if (!emulator_allocated_bytes()) GTEST_SKIP() << "counts the emulated device's memory";
    const auto& o = GetParam().options;
    CpuWhisper cpu(*checkpoint_, 1);
    CudaWhisper gpu(*checkpoint_, 1);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 3);
    cpu.listen(mel);
    gpu.listen(mel);
    const auto prompt = random_tokens(1, kPrompt, o.vocab, 4);
    (void)cpu.prefill(token_tensor(prompt, 0, kPrompt));
    (void)gpu.prefill(token_tensor(prompt, 0, kPrompt));

    const size_t before_expand = *emulator_allocated_bytes();
    cpu.expand_batch(kBeam);
    gpu.expand_batch(kBeam);
    const size_t expanded = *emulator_allocated_bytes() - before_expand;
    // Self-attention keys and values of every layer, kBeam - 1 more rows.
    const auto self_rows = static_cast<size_t>(layers_ * 2 * (kBeam - 1) * self_row_bytes_);
    std::printf(
        "%s: expanding to %lld rows added %zu bytes (self caches %zu; a copy of the "
        "cross caches per row would add %lld more)\n",
        GetParam().name.c_str(), static_cast<long long>(kBeam), expanded, self_rows,
        static_cast<long long>(layers_ * 2 * (kBeam - 1) * cross_row_bytes_));
    EXPECT_EQ(expanded, self_rows);

    const auto rows = random_tokens(kBeam, 3, o.vocab, 5);
    double worst = 0.0;
    auto step_both = [&](int64_t i) {
        const HostTensor tokens = token_tensor(rows, i, i + 1);
        const auto pos = static_cast<int32_t>(kPrompt + i);
        const HostTensor want = cpu.step(tokens, pos);
        const HostTensor got = gpu.step(tokens, pos);
        ASSERT_EQ(got.shape(), (std::vector<int64_t>{kBeam, o.vocab}));
        worst = std::max(worst, relative_error(got.f32_values(), want.f32_values()));
    };
    step_both(0);
    // Every row moves: room for kBeam rows of one self-attention cache, once.
    const std::vector<int64_t> order = {4, 4, 0, 2, 1};
    const size_t before_reorder = *emulator_allocated_bytes();
    cpu.reorder_batch(order);
    gpu.reorder_batch(order);
    EXPECT_EQ(*emulator_allocated_bytes() - before_reorder,
              static_cast<size_t>(kBeam * self_row_bytes_));
    step_both(1);
    const size_t before_second = *emulator_allocated_bytes();
    cpu.reorder_batch(order);
    gpu.reorder_batch(order);
    EXPECT_EQ(*emulator_allocated_bytes(), before_second) << "a second reorder allocates nothing";
    step_both(2);
    EXPECT_LE(worst, kLogitsTolerance);

    // A prompt of 3 tokens on the 5 rows (several queries over the shared cross keys: the
    // flash or cuBLAS attention) with one head's cross-attention weights kept.
    const auto prompts = random_tokens(kBeam, 3, o.vocab, 6);
    const std::vector<earshot::backend::AttentionHead> heads = {{1, o.heads - 1}, {0, 0}};
    earshot::backend::CrossAttentionRequest want_weights{heads, {}};
    earshot::backend::CrossAttentionRequest got_weights{heads, {}};
    const HostTensor want = cpu.prefill(token_tensor(prompts, 0, 3), &want_weights);
    const HostTensor got = gpu.prefill(token_tensor(prompts, 0, 3), &got_weights);
    EXPECT_LE(relative_error(got.f32_values(), want.f32_values()), kLogitsTolerance);
    ASSERT_EQ(got_weights.weights.shape(), want_weights.weights.shape());
    EXPECT_LE(relative_error(got_weights.weights.f32_values(), want_weights.weights.f32_values()),
              kLogitsTolerance);
    std::printf(
        "%s: beam steps %.3g, beam prefill %.3g, kept weights %.3g relative error\n",
        GetParam().name.c_str(), worst, relative_error(got.f32_values(), want.f32_values()),
        relative_error(got_weights.weights.f32_values(), want_weights.weights.f32_values()));
}

// The caches are allocated once for the most rows: after the first two windows (each plan's
// second run is its capture), a beam window captures no graph, replays its steps, allocates
// nothing, and gives the CPU's logits (the reused caches hold nothing of the earlier windows).
TEST_P(BeamCachesOnCudaDevice, LaterBeamWindowsReplayTheirGraphs) {
    if (!emulator_graph_captures()) GTEST_SKIP() << "counts the emulated device's graphs";
    CpuWhisper cpu(*checkpoint_, 1);
    CudaWhisper gpu(*checkpoint_, 1);
    const size_t captures_before = *emulator_graph_captures();
    EXPECT_LE(beam_window(cpu, gpu, 0), kLogitsTolerance);
    const size_t captures_first = *emulator_graph_captures();
    EXPECT_LE(beam_window(cpu, gpu, 1), kLogitsTolerance);
    const size_t captures_second = *emulator_graph_captures();
    const size_t bytes = *emulator_allocated_bytes();
    const size_t launches = *emulator_graph_launches();
    EXPECT_LE(beam_window(cpu, gpu, 2), kLogitsTolerance);
    std::printf("%s: graphs captured in windows 1, 2, 3: %zu, %zu, %zu\n", GetParam().name.c_str(),
                captures_first - captures_before, captures_second - captures_first,
                *emulator_graph_captures() - captures_second);
    // The second window captures listen and the prompt (their second runs); the steps at 5 rows,
    // captured in the first, replay on the same caches.
    EXPECT_EQ(captures_second - captures_first, size_t{2});
    EXPECT_EQ(*emulator_graph_captures(), captures_second) << "the third window captured graphs";
    // Its steps at 5 rows, listen and the prompt: each one graph launch.
    EXPECT_GE(*emulator_graph_launches() - launches, static_cast<size_t>(kSteps + 2));
    EXPECT_EQ(*emulator_allocated_bytes(), bytes) << "the third window allocated device memory";
}

// listen at several rows after an expansion writes every row of the cross caches: each row gets
// its own copy first, and a prompt on the two rows then reads two different audios like the CPU.
TEST_P(BeamCachesOnCudaDevice, ListeningOnSharedRowsGivesEachRowItsOwnCopy) {
    const auto& o = GetParam().options;
    CpuWhisper cpu(*checkpoint_, 1);
    CudaWhisper gpu(*checkpoint_, 1);
    cpu.listen(test_mel(1, o.mels, o.frames, 0));
    gpu.listen(test_mel(1, o.mels, o.frames, 0));
    cpu.expand_batch(2);
    gpu.expand_batch(2);  // the cross caches shared by the two rows
    const HostTensor two = test_mel(2, o.mels, o.frames, 1);
    cpu.listen(two);
    gpu.listen(two);
    const auto prompts = random_tokens(2, 3, o.vocab, 8);
    const HostTensor want = cpu.prefill(token_tensor(prompts, 0, 3));
    const HostTensor got = gpu.prefill(token_tensor(prompts, 0, 3));
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_LE(relative_error(got.f32_values(), want.f32_values()), kLogitsTolerance);
}

// EARSHOT_CUDA_OLD_KERNELS=cross_caches: every row its own copy of the cross caches, as before
// (expanding adds them), with the CPU's logits; and the old one-query kernel reads shared ones.
TEST_P(BeamCachesOnCudaDevice, OldCopiesPerRowAndOldAttentionKernelStillMatch) {
    for (const char* old : {"cross_caches", "attention"}) {
        OldKernelsVariable variable(old);
        CpuWhisper cpu(*checkpoint_, 1);
        CudaWhisper gpu(*checkpoint_, 1);
        EXPECT_LE(beam_window(cpu, gpu, 4), kLogitsTolerance) << old;
        if (!emulator_allocated_bytes() || std::string(old) != "cross_caches") continue;
        // A fresh model's expansion: 4 more rows of every cache, the cross caches too.
        CudaWhisper fresh(*checkpoint_, 1);
        const auto& o = GetParam().options;
        fresh.listen_on_device(test_mel(1, o.mels, o.frames, 5));
        (void)fresh.prefill(token_tensor(random_tokens(1, kPrompt, o.vocab, 3), 0, kPrompt));
        const size_t before = *emulator_allocated_bytes();
        fresh.expand_batch(kBeam);
        EXPECT_EQ(
            *emulator_allocated_bytes() - before,
            static_cast<size_t>(layers_ * 2 * (kBeam - 1) * (self_row_bytes_ + cross_row_bytes_)));
    }
}

INSTANTIATE_TEST_SUITE_P(RandomCheckpoints, BeamCachesOnCudaDevice,
                         ::testing::Values(make_shape("F16Small", 64, 4, 200, 32, "f16"),
                                           make_shape("Bf16OddHeads", 96, 3, 64, 16, "bf16")),
                         [](const ::testing::TestParamInfo<Shape>& param_info) {
                             return param_info.param.name;
                         });

}  // namespace
