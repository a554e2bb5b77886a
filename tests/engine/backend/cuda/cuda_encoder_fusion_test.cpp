// The fused encoder layer (cuda_encoder_fusions.h) on the whole model: encoder states against the
// CPU backend (the f16 tolerance of the parity tests) and against the same checkpoint on a model
// made with EARSHOT_CUDA_OLD_KERNELS=encoder (the 27 separate launches), in one process; and the
// listing's hand counts of the new kernels' bytes and FLOPs at large-v3's size.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cuda/cuda_encoder_fusions.h"
#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "large_v3_config.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using earshot::backend::CpuWhisper;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::OldKernelsVariable;
using namespace earshot::test::backend_data;  // NOLINT: test mel, relative_error

// As the parity tests (cuda_backend_test.cpp): f16 weights and activations against f32.
constexpr double kEncoderTolerance = 2e-3;
// The fused layer against the separate launches: the same f16 roundings of the GEMM operands,
// but the q/k/v biases rounded to f16 and sums in other orders, so an f16 ulp here and there.
constexpr double kOldKernelsTolerance = 1e-3;

struct EncoderCase {
    const char* name;
    int64_t d, heads, frames;
    const char* dtype;
    int64_t batches;  // 1, or 1 and 2
};

TEST(EncoderFusionOnCudaDevice, EncoderStatesMatchTheCpuAndTheSeparateLaunches) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    // Head sizes 16 and 32 over 65 audio positions (a partial query tile and a partial key tile);
    // f16 and f32 checkpoints (their matrices f16 on the device either way); batch 2 once.
    for (const EncoderCase c : {EncoderCase{"f16 Dh 16", 64, 4, 130, "f16", 2},
                                EncoderCase{"f32 Dh 32", 96, 3, 130, "f32", 1}}) {
        earshot::test::TempDir dir("earshot-cuda-encoder-fusion");
        earshot::model::RandomCheckpointOptions o{
            .mels = 80, .d = c.d, .heads = c.heads, .enc_layers = 2, .dec_layers = 1, .vocab = 300};
        o.frames = c.frames;
        o.max_tokens = 8;
        o.dtype = c.dtype;
        o.seed = 51;
        earshot::model::write_random_checkpoint(dir.path(), o);
        const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
        std::optional<CudaWhisper> separate;
        {
            const OldKernelsVariable old("encoder");
            separate.emplace(checkpoint, 1);
        }
        CudaWhisper fused(checkpoint, 1);
        CpuWhisper cpu(checkpoint);
        for (int64_t batch = 1; batch <= c.batches; ++batch) {
            const HostTensor mel = test_mel(batch, o.mels, o.frames, 3);
            const HostTensor want = cpu.encode(mel);
            const HostTensor got = fused.encode(mel);
            const HostTensor old = separate->encode(mel);
            ASSERT_EQ(got.shape(), want.shape());
            const double cpu_error = relative_error(got.f32_values(), want.f32_values());
            const double old_error = relative_error(got.f32_values(), old.f32_values());
            const double old_cpu_error = relative_error(old.f32_values(), want.f32_values());
            std::printf(
                "%s batch %lld: fused against the CPU %.3g (separate %.3g), against the "
                "separate launches %.3g\n",
                c.name, static_cast<long long>(batch), cpu_error, old_cpu_error, old_error);
            EXPECT_LE(cpu_error, kEncoderTolerance) << c.name << " batch " << batch;
            EXPECT_LE(old_error, kOldKernelsTolerance) << c.name << " batch " << batch;
        }
    }
}

const earshot::backend::PlanKernel& find(const earshot::backend::PlanListing& l,
                                         const std::string& kernel, const std::string& scope) {
    for (const auto& k : l.kernels) {
        if (k.kernel == kernel && k.scope == scope) return k;
    }
    throw std::runtime_error("no " + kernel + " in " + scope);
}

// large-v3 (T 1500, D 1280, 20 heads of 64, Inner 5120), by hand.
TEST(EncoderFusion, TheListingCountsTheFusedKernelsBytesAndFlops) {
    const auto binding = earshot::model::bind_whisper(earshot::test::large_v3_config());
    earshot::backend::PlanListingRequest request;
    request.entry = "encode";
    request.backend = earshot::backend::PlanBackend::cuda;
    const auto l = earshot::backend::list_plan(binding, request);
    const int64_t t = 1500, d = 1280, inner = 5120;
    const auto& norm = find(l, "layer_norm_half", "encoder_layers[3].self_attn_layer_norm");
    EXPECT_EQ(norm.read_bytes, t * d * 4 + 2 * d * 4);
    EXPECT_EQ(norm.written_bytes, t * d * 2);
    const auto& qkv = find(l, "cublaslt_gemm+bias", "encoder_layers[3].self_attn.attend.q_proj");
    EXPECT_EQ(qkv.read_bytes, t * d * 2 + 3 * d * d * 2 + 3 * d * 2);
    EXPECT_EQ(qkv.written_bytes, t * 3 * d * 2);
    EXPECT_EQ(qkv.flops, 2 * t * d * 3 * d);
    const auto& flash = find(l, "flash_attention_strided", "encoder_layers[3].self_attn.attend");
    EXPECT_EQ(flash.read_bytes, t * 3 * d * 2);
    EXPECT_EQ(flash.written_bytes, t * d * 2);
    EXPECT_EQ(flash.flops, 4 * 20 * t * t * 64);
    const auto& out =
        find(l, "cublaslt_gemm+bias+residual", "encoder_layers[3].self_attn.attend.out_proj");
    EXPECT_EQ(out.read_bytes, t * d * 2 + d * d * 2 + d * 4 + t * d * 4);
    EXPECT_EQ(out.written_bytes, t * d * 4);
    const auto& gelu = find(l, "bias_gelu_half", "encoder_layers[3].mlp.fc1");
    EXPECT_EQ(gelu.read_bytes, t * inner * 2 + inner * 4);
    const auto& fc1 = find(l, "cublaslt_gemm", "encoder_layers[3].mlp.fc1");
    EXPECT_EQ(fc1.read_bytes, t * d * 2 + inner * d * 2);
    EXPECT_EQ(fc1.written_bytes, t * inner * 2);
    EXPECT_EQ(gelu.written_bytes, t * inner * 2);
    const auto& fc2 = find(l, "cublaslt_gemm+bias+residual", "encoder_layers[3].mlp.fc2");
    EXPECT_EQ(fc2.read_bytes, t * inner * 2 + d * inner * 2 + d * 4 + t * d * 4);
    EXPECT_EQ(fc2.flops, 2 * t * inner * d);
}

// cuBLASLt's algorithm chosen once per distinct GEMM for the model's lifetime (cuda_lt_gemm.cpp):
// over two encoder windows, the heuristic is asked exactly once per distinct GEMM (shape, types,
// epilogue, pointer alignments) the emulated cuBLASLt ran, all in the first window, none in the
// second, and a new batch size asks only for its new shapes. The windows' states are the same.
TEST(EncoderFusionOnCudaDevice, EachDistinctGemmAsksCublasLtOnceAcrossWindows) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    const auto queries = [] {
        return earshot::test::emulator_count("earshot_cuda_emulator_lt_heuristic_queries");
    };
    const auto distinct = [] {
        return earshot::test::emulator_count("earshot_cuda_emulator_lt_distinct_gemms");
    };
    if (!queries()) GTEST_SKIP() << "the emulated cuBLASLt counts its queries; a GPU's does not";
    earshot::test::TempDir dir("earshot-cuda-lt-cache");
    earshot::model::RandomCheckpointOptions o{
        .mels = 80, .d = 64, .heads = 4, .enc_layers = 2, .dec_layers = 1, .vocab = 300};
    o.frames = 66;
    o.max_tokens = 8;
    o.dtype = "f16";
    o.seed = 52;
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    CudaWhisper model(checkpoint, 1);
    std::vector<float> first;
    for (int64_t batch : {1, 1, 2, 2}) {
        const size_t queries_before = *queries();
        const size_t distinct_before = *distinct();
        const HostTensor encoded = model.encode(test_mel(batch, o.mels, o.frames, 3));
        const std::vector<float> states(encoded.f32_values().begin(), encoded.f32_values().end());
        const size_t asked = *queries() - queries_before;
        const size_t ran = *distinct() - distinct_before;
        const bool first_of_batch = first.empty() || states.size() != first.size();
        std::printf("batch %lld: %zu heuristic queries, %zu new distinct GEMMs\n",
                    static_cast<long long>(batch), asked, ran);
        EXPECT_EQ(asked, ran) << "batch " << batch;
        if (first_of_batch) {
            EXPECT_GT(ran, 0U) << "batch " << batch;
            first = states;
        } else {
            EXPECT_EQ(asked, 0U) << "batch " << batch;
            EXPECT_EQ(states, first) << "batch " << batch;
        }
    }
}

}  // namespace
