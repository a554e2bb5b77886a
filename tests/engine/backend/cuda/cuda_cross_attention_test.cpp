// Cross-attention weights the CUDA backend keeps when a prefill asks (word alignment on the GPU):
// against the CPU backend's on random checkpoints (f32, bf16 with odd heads, f16), several heads
// including the last layer's, batch rows with their own audio and beam rows expanded from one;
// the logits unchanged by asking, and the decoder steps after it still replayed from their graph.
// Suites named *OnCudaDevice need a CUDA device (the emulated one of cuda_backend_emulated here)
// and skip with one line only on a machine without a driver or a device (cuda_test_device.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "temp_dir.h"
#include "value_difference.h"

namespace {

using namespace earshot::test::backend_data;
using earshot::backend::AttentionHead;
using earshot::backend::CpuWhisper;
using earshot::backend::CrossAttentionRequest;
using earshot::backend::CudaError;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::emulator_graph_launches;

// Probabilities in [0, 1], the GPU's against the CPU's: the GPU runs every GEMM on f16 operands
// and keeps the cross caches in f16 (about 5e-4 relative per rounding) and its encoder states
// differ from the CPU's by up to 2e-3 relative (cuda_backend_test's kEncoderTolerance), so a
// score s = q . k / sqrt(Dh) moves by about |s| 2e-3 and a probability p by about p |s| 2e-3.
// These random checkpoints attend broadly (p well under 0.1): measured on the emulated device, at
// most 1.4e-4 (each test prints its own); the bound leaves 7x for the GPU's summation orders.
constexpr double kWeightTolerance = 1e-3;
// Other heads, or another row's audio, differ by far more (measured: above 3e-2).
constexpr double kOtherHeadsAtLeast = 10 * kWeightTolerance;
// Logits of the CUDA backend against the CPU's (cuda_backend_test's kLogitsTolerance).
constexpr double kLogitsTolerance = 1e-2;

// A random checkpoint small enough for the emulated device, and the heads asked of it.
struct Case {
    std::string name;
    earshot::model::RandomCheckpointOptions options;
    std::vector<AttentionHead> heads;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

Case make_case(std::string name, int64_t mels, int64_t d, int64_t heads, int64_t dec_layers,
               int64_t frames, std::string dtype, uint64_t seed, std::vector<AttentionHead> asked) {
    Case c{std::move(name), {}, std::move(asked)};
    auto& o = c.options;
    o.mels = mels;
    o.d = d;
    o.heads = heads;
    o.enc_layers = 1;
    o.dec_layers = dec_layers;
    o.vocab = 300;
    o.frames = frames;
    o.max_tokens = 16;
    o.dtype = std::move(dtype);
    o.seed = seed;
    return c;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> list = {
        make_case("F32", 80, 64, 4, 2, 120, "f32", 51, {{1, 3}, {0, 1}, {1, 0}}),
        make_case("Bf16OddHeads", 128, 96, 3, 1, 64, "bf16", 52, {{0, 2}, {0, 0}}),
        make_case("F16ThreeLayers", 80, 64, 4, 3, 100, "f16", 53, {{2, 1}, {0, 0}, {2, 3}}),
    };
    return list;
}

// Weights [B, n, S, A] of both backends: the largest |gpu - cpu| (heads paired as `cpu_heads`
// index them, by default the same order), and the extreme row sums of the GPU's.
struct Comparison {
    double max_error = 0.0;
    double min_row_sum = 2.0;
    double max_row_sum = 0.0;
};

Comparison compare(const HostTensor& gpu, const HostTensor& cpu,
                   std::span<const int64_t> cpu_heads = {}) {
    Comparison result;
    const int64_t rows = gpu.dim(0);
    const int64_t n = gpu.dim(1);
    const int64_t s_len = gpu.dim(2);
    const int64_t a = gpu.dim(3);
    const auto got = gpu.f32_values();
    const auto want = cpu.f32_values();
    for (int64_t b = 0; b < rows; ++b) {
        for (int64_t i = 0; i < n; ++i) {
            const int64_t j = cpu_heads.empty() ? i : cpu_heads[static_cast<size_t>(i)];
            for (int64_t s = 0; s < s_len; ++s) {
                double sum = 0.0;
                for (int64_t t = 0; t < a; ++t) {
                    const double g = got[static_cast<size_t>(((b * n + i) * s_len + s) * a + t)];
                    const double w = want[static_cast<size_t>(((b * n + j) * s_len + s) * a + t)];
                    sum += g;
                    result.max_error =
                        std::max(result.max_error, earshot::test::value_difference(g, w));
                }
                result.min_row_sum = std::min(result.min_row_sum, sum);
                result.max_row_sum = std::max(result.max_row_sum, sum);
            }
        }
    }
    return result;
}

class CrossAttentionOnCudaDevice : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        earshot::model::write_random_checkpoint(dir_.path(), GetParam().options);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
    }

    const earshot::model::RandomCheckpointOptions& o() const { return GetParam().options; }
    int64_t audio_positions() const { return o().frames / 2; }

    earshot::test::TempDir dir_{"earshot-cuda-cross-attention"};
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
};

// Two batch rows, each with its own audio: the GPU keeps the CPU's probabilities of the asked
// heads, in the asked order, and its logits are those of a plain prefill.
TEST_P(CrossAttentionOnCudaDevice, KeepsTheCpusProbabilitiesForRowsWithTheirOwnAudio) {
    constexpr int64_t kRows = 2;
    constexpr int64_t kTokens = 6;
    CpuWhisper cpu(*checkpoint_, kRows);
    CudaWhisper gpu(*checkpoint_, kRows);
    // Two clearly different windows, one per row.
    const HostTensor first = test_mel(1, o().mels, o().frames, 3);
    const HostTensor other = test_mel(1, o().mels, o().frames, 6);
    std::vector<float> both(first.f32_values().begin(), first.f32_values().end());
    both.insert(both.end(), other.f32_values().begin(), other.f32_values().end());
    const HostTensor mel = HostTensor::f32({kRows, o().mels, o().frames}, std::move(both));
    cpu.listen(mel);
    gpu.listen_on_device(mel);
    const HostTensor tokens = token_tensor(random_tokens(kRows, kTokens, o().vocab, 9), 0, kTokens);
    const std::vector<AttentionHead>& heads = GetParam().heads;
    CrossAttentionRequest want{heads, {}};
    CrossAttentionRequest got{heads, {}};
    const HostTensor cpu_logits = cpu.prefill(tokens, &want);
    const HostTensor logits = gpu.prefill(tokens, &got);
    const auto n = static_cast<int64_t>(heads.size());
    ASSERT_EQ(got.weights.shape(), (std::vector<int64_t>{kRows, n, kTokens, audio_positions()}));
    ASSERT_EQ(got.weights.shape(), want.weights.shape());

    const Comparison c = compare(got.weights, want.weights);
    std::printf("%s: cross-attention weights, GPU against CPU, max abs error %.3g\n",
                GetParam().name.c_str(), c.max_error);
    EXPECT_LE(c.max_error, kWeightTolerance);
    EXPECT_NEAR(c.min_row_sum, 1.0, 1e-5);
    EXPECT_NEAR(c.max_row_sum, 1.0, 1e-5);
    EXPECT_LE(relative_error(logits.f32_values(), cpu_logits.f32_values()), kLogitsTolerance);

    // The comparison can fail: every head paired with the next one of the list differs.
    std::vector<int64_t> shifted(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) shifted[static_cast<size_t>(i)] = (i + 1) % n;
    EXPECT_GT(compare(got.weights, want.weights, shifted).max_error, kOtherHeadsAtLeast);
    // And the rows differ from each other (each row reads its own audio).
    const HostTensor row0 = HostTensor::f32(
        {1, n, kTokens, audio_positions()},
        std::vector<float>(got.weights.f32_values().begin(),
                           got.weights.f32_values().begin() + got.weights.numel() / kRows));
    const HostTensor row1 = HostTensor::f32(
        {1, n, kTokens, audio_positions()},
        std::vector<float>(got.weights.f32_values().begin() + got.weights.numel() / kRows,
                           got.weights.f32_values().end()));
    EXPECT_GT(compare(row0, row1).max_error, kOtherHeadsAtLeast);

    // Asking changes nothing else: a plain prefill gives the same logits.
    gpu.listen_on_device(mel);
    const HostTensor plain = gpu.prefill(tokens);
    EXPECT_LE(relative_error(logits.f32_values(), plain.f32_values()), 1e-6);
}

// Beam search's rows: one window expanded to three rows with different tokens, through the
// decoder model; the steps after the keeping prefill still match the CPU and, on the emulated
// device, still replay from their captured graph.
TEST_P(CrossAttentionOnCudaDevice, BeamRowsThroughTheDecoderModelAndTheStepsAfter) {
    constexpr int64_t kRows = 3;
    constexpr int64_t kTokens = 5;
    auto cpu = earshot::runtime::make_cpu_decoder_model(*checkpoint_);
    auto gpu = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    EXPECT_TRUE(gpu->keeps_cross_attention());
    const HostTensor mel = test_mel(1, o().mels, o().frames, 4);
    cpu->listen(mel);
    gpu->listen(mel);
    cpu->expand(kRows);
    gpu->expand(kRows);
    const auto rows = random_tokens(kRows, kTokens + 4, o().vocab, 10);
    const HostTensor prompt = token_tensor(rows, 0, kTokens);
    const std::vector<AttentionHead>& heads = GetParam().heads;
    CrossAttentionRequest want{heads, {}};
    CrossAttentionRequest got{heads, {}};
    cpu->prefill_keeping_cross_attention(prompt, want);
    gpu->prefill_keeping_cross_attention(prompt, got);
    ASSERT_EQ(got.weights.shape(), (std::vector<int64_t>{kRows, static_cast<int64_t>(heads.size()),
                                                         kTokens, audio_positions()}));
    const Comparison c = compare(got.weights, want.weights);
    std::printf("%s: beam rows' cross-attention weights, max abs error %.3g\n",
                GetParam().name.c_str(), c.max_error);
    EXPECT_LE(c.max_error, kWeightTolerance);
    EXPECT_NEAR(c.min_row_sum, 1.0, 1e-5);

    const std::optional<size_t> launches_before = emulator_graph_launches();
    for (int64_t pos = kTokens; pos < kTokens + 4; ++pos) {
        const HostTensor step_tokens = token_tensor(rows, pos, pos + 1);
        const HostTensor expected = cpu->step(step_tokens, static_cast<int32_t>(pos));
        const HostTensor next = gpu->step(step_tokens, static_cast<int32_t>(pos));
        EXPECT_LE(relative_error(next.f32_values(), expected.f32_values()), kLogitsTolerance)
            << "position " << pos;
    }
    // The first step runs launch by launch, the second is captured, the others replay it.
    if (launches_before) {
        EXPECT_GE(*emulator_graph_launches() - *launches_before, size_t{2});
    }
}

TEST_P(CrossAttentionOnCudaDevice, AHeadTheModelLacksIsRefusedLikeOnTheCpuAndTheRestIsTimed) {
    CudaWhisper gpu(*checkpoint_, 1);
    gpu.listen_on_device(test_mel(1, o().mels, o().frames, 0));
    const HostTensor tokens = token_tensor(random_tokens(1, 3, o().vocab, 1), 0, 3);
    const std::vector<AttentionHead> no_layer = {{o().dec_layers, 0}};
    CrossAttentionRequest request{no_layer, {}};
    EXPECT_THROW(gpu.prefill(tokens, &request), std::out_of_range);
    const std::vector<AttentionHead> no_head = {{0, o().heads}};
    request.heads = no_head;
    EXPECT_THROW(gpu.prefill(tokens, &request), std::out_of_range);
    // The model still works after refusing, profiled too: every step of the prefill is timed.
    const std::vector<AttentionHead> last = {{o().dec_layers - 1, o().heads - 1}};
    request.heads = last;
    gpu.set_profiling(true);
    gpu.prefill(tokens, &request);
    double total_ms = 0.0;
    for (const auto& timing : gpu.last_timings()) total_ms += timing.ms;
    EXPECT_FALSE(gpu.last_timings().empty());
    EXPECT_GT(total_ms, 0.0);
    ASSERT_EQ(request.weights.shape(), (std::vector<int64_t>{1, 1, 3, audio_positions()}));
    const Comparison c = compare(request.weights, request.weights);
    EXPECT_NEAR(c.min_row_sum, 1.0, 1e-5);
    EXPECT_NEAR(c.max_row_sum, 1.0, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(RandomCheckpoints, CrossAttentionOnCudaDevice,
                         ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                             return param_info.param.name;
                         });

}  // namespace
