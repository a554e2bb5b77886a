// A quantized ggml checkpoint on the CUDA backend: its dequantized f16 weights are uploaded as any
// f16 checkpoint's, and the logits match the CPU backend's on the same weights (the blocks decoded
// to f32). Skips on a machine without a CUDA driver or device, as every CUDA test does
// (cuda_test_device.h); the emulated device runs it in the cpu-labelled `cuda_backend_emulated`
// test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "ggml_writer.h"
#include "temp_dir.h"
#include "value_difference.h"

namespace earshot {
namespace {

using backend::HostTensor;

// f16 weights and activations against the f32 CPU backend: the CUDA backend tests' logit
// tolerance (max |difference| over max |logit|).
constexpr double kLogitsTolerance = 1e-2;

// [1, Vocab] logits of tokens [1, 2, 3] after a fixed random mel [1, 80, 40].
template <typename Backend>
std::vector<float> logits_of(Backend& backend) {
    std::mt19937_64 engine(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> mel(80 * 40);
    for (auto& v : mel) v = normal(engine);
    backend.listen(HostTensor::f32({1, 80, 40}, mel));
    const HostTensor logits = backend.prefill(HostTensor::i32({1, 3}, {1, 2, 3}));
    const auto values = logits.f32_values();
    return {values.begin(), values.end()};
}

TEST(GgmlQuantOnCudaDevice, Q4KTwinRunsAsOnTheCpu) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    const test::TempDir dir("earshot-ggml-quant-cuda");
    model::RandomCheckpointOptions o;
    o.d = 256;  // whole q4_k blocks in every linear row
    o.heads = 4;
    o.enc_layers = 2;
    o.dec_layers = 2;
    o.vocab = 600;
    o.frames = 40;
    o.max_tokens = 16;
    o.dtype = "f32";
    o.seed = 13;
    write_random_checkpoint(dir.path() / "hf", o);
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(dir.path() / "hf");
    test::write_ggml_file(dir.path() / "q4_k.bin", test::ggml_twin(hf.weights, hf.binding.config,
                                                                   checkpoint::GgmlType::q4_k));
    const model::WhisperCheckpoint q = model::load_whisper_checkpoint(dir.path() / "q4_k.bin");
    ASSERT_EQ(q.weights.quantized_as("encoder_layers.0.self_attn.q_proj.weight"), "q4_k");

    // The CPU computes a quantized file's few-row products on its blocks with activations rounded
    // to 8 bits (as ggml does); the CUDA backend decodes the blocks to f16 at upload. So CUDA is
    // held to the CPU on the blocks decoded to f32, the same weights without that rounding.
    test::write_ggml_file(dir.path() / "decoded.bin",
                          test::ggml_twin(q.weights, q.binding.config, checkpoint::GgmlType::f32));
    const model::WhisperCheckpoint decoded =
        model::load_whisper_checkpoint(dir.path() / "decoded.bin");
    backend::CpuWhisper cpu(decoded);
    backend::CudaWhisper cuda(q);
    const std::vector<float> want = logits_of(cpu);
    const std::vector<float> got = logits_of(cuda);
    ASSERT_EQ(got.size(), want.size());
    double scale = 0.0;
    for (const float w : want) scale = std::max(scale, std::fabs(static_cast<double>(w)));
    const double error =
        test::max_difference(std::span<const float>(got), std::span<const float>(want));
    ASSERT_GT(scale, 0.0);
    EXPECT_LT(error / scale, kLogitsTolerance);
}

// The types whose blocks the CUDA module keeps and its GEMVs read (issue 34): a random checkpoint
// in each, on the CUDA backend and on the CPU backend, both on the same file. The decoder's few-row
// products compute the same thing on both (activations rounded to 8 bits per block, exact integer
// dots per block), but their inputs differ by the f16 tolerance (CUDA's encoder, attention and
// caches are f16), and where that moves an activation across a rounding boundary of its 8-bit
// level the two sides' levels differ by one step (1/254 of the block's largest value): on this
// small model (two blocks per row) that doubles the f16 tolerance, as the q4_k test above measured
// (1.8e-2). A kernel reading a wrong level or scale is off by far more. A prefill of 12 tokens
// takes the GEMM path (the blocks decoded to f16 for cuBLAS), and steps after it the GEMVs at
// m = 1.
constexpr double kBlockLogitsTolerance = 3e-2;
class BlockGemvOnCudaDevice : public testing::TestWithParam<checkpoint::GgmlType> {};

double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
    if (got.size() != want.size()) return INFINITY;
    double scale = 0.0;
    for (const float w : want) scale = std::max(scale, std::fabs(static_cast<double>(w)));
    if (scale == 0.0) return INFINITY;
    return test::max_difference(std::span<const float>(got), std::span<const float>(want)) / scale;
}

template <typename Backend>
std::vector<std::vector<float>> long_prefill_then_steps(Backend& backend) {
    std::mt19937_64 engine(5);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> mel(80 * 40);
    for (auto& v : mel) v = normal(engine);
    backend.listen(HostTensor::f32({1, 80, 40}, mel));
    std::vector<int32_t> tokens(12);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int32_t>(7 * i + 1);
    std::vector<std::vector<float>> out;
    auto keep = [&](const HostTensor& logits) {
        const auto values = logits.f32_values();
        out.emplace_back(values.begin(), values.end());
    };
    keep(backend.prefill(HostTensor::i32({1, 12}, tokens)));
    keep(backend.step(HostTensor::i32({1, 1}, {5}), 12));
    keep(backend.step(HostTensor::i32({1, 1}, {9}), 13));
    return out;
}

TEST_P(BlockGemvOnCudaDevice, LogitsMatchTheCpuOnTheSameFile) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    const checkpoint::GgmlType type = GetParam();
    const std::string name(checkpoint::ggml_type_name(type));
    const test::TempDir dir("earshot-block-gemv-cuda");
    model::RandomCheckpointOptions o;
    o.d = 64;  // two blocks per row
    o.heads = 2;
    o.enc_layers = 1;
    o.dec_layers = 2;
    o.vocab = 300;
    o.frames = 40;
    o.max_tokens = 16;
    o.dtype = "f32";
    o.seed = 17;
    write_random_checkpoint(dir.path() / "hf", o);
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(dir.path() / "hf");
    test::write_ggml_file(dir.path() / "q.bin",
                          test::ggml_twin(hf.weights, hf.binding.config, type));
    test::write_ggml_file(dir.path() / "f16.bin", test::ggml_twin(hf.weights, hf.binding.config,
                                                                  checkpoint::GgmlType::f16));
    const model::WhisperCheckpoint q = model::load_whisper_checkpoint(dir.path() / "q.bin");
    ASSERT_EQ(q.weights.quantized_as("decoder_layers.0.mlp.fc1.weight"), name);

    backend::CpuWhisper cpu(q);
    backend::CudaWhisper cuda(q);
    // The decoder step's linears are kept as blocks; the encoder's and the embedding table (also
    // read by the lookup) are decoded to f16 at upload.
    EXPECT_EQ(cuda.kept_blocks("decoder_layers.0.mlp.fc1.weight"), name);
    EXPECT_EQ(cuda.kept_blocks("decoder_layers.1.self_attn.k_proj.weight"), name);
    EXPECT_EQ(cuda.kept_blocks("decoder_layers.1.encoder_attn.out_proj.weight"), name);
    EXPECT_EQ(cuda.kept_blocks("encoder_layers.0.mlp.fc1.weight"), "");
    EXPECT_EQ(cuda.kept_blocks("token_embedding"), "");
    // The blocks are what the device holds: less than the same model in f16.
    const model::WhisperCheckpoint f16 = model::load_whisper_checkpoint(dir.path() / "f16.bin");
    backend::CudaWhisper cuda_f16(f16);
    EXPECT_LT(cuda.device_bytes(), cuda_f16.device_bytes());

    // The step's listing counts the blocks' bytes: less than the f16 listing by exactly what the
    // kept weights save, each read once per step.
    backend::PlanListingRequest request;
    request.entry = "step";
    request.backend = backend::PlanBackend::cuda;
    const backend::PlanListing as_f16 = backend::list_plan(q.binding, request);
    request.weight_blocks = [&cuda](const std::string& path) { return cuda.kept_blocks(path); };
    const backend::PlanListing as_blocks = backend::list_plan(q.binding, request);
    int64_t saved_bytes = 0;
    for (const checkpoint::Weight& w : q.weights.weights()) {
        if (cuda.kept_blocks(w.path).empty()) continue;
        saved_bytes += static_cast<int64_t>(w.element_count() * 2 - w.bytes.size());
    }
    EXPECT_GT(saved_bytes, 0);
    EXPECT_EQ(as_f16.read_bytes() - as_blocks.read_bytes(), saved_bytes);
    EXPECT_EQ(as_f16.kernels.size(), as_blocks.kernels.size());
    int64_t block_kernels = 0;
    for (const backend::PlanKernel& k : as_blocks.kernels) {
        block_kernels += k.kernel.starts_with("gemv_" + name) ? 1 : 0;
    }
    EXPECT_GT(block_kernels, 0);

    const std::vector<float> want = logits_of(cpu);
    const std::vector<float> got = logits_of(cuda);
    const double error = relative_error(got, want);
    EXPECT_LT(error, kBlockLogitsTolerance) << name << " prefill of 3 (GEMVs)";
    std::printf("%s prefill of 3: %.3g of the largest logit\n", name.c_str(), error);

    const auto cpu_long = long_prefill_then_steps(cpu);
    const auto cuda_long = long_prefill_then_steps(cuda);
    ASSERT_EQ(cpu_long.size(), cuda_long.size());
    for (size_t i = 0; i < cpu_long.size(); ++i) {
        const double e = relative_error(cuda_long[i], cpu_long[i]);
        EXPECT_LT(e, kBlockLogitsTolerance) << name << (i == 0 ? " prefill of 12 (GEMM)" : " step");
        std::printf("%s %s: %.3g of the largest logit\n", name.c_str(),
                    i == 0 ? "prefill of 12" : "step", e);
    }
}

INSTANTIATE_TEST_SUITE_P(Types, BlockGemvOnCudaDevice,
                         testing::Values(checkpoint::GgmlType::q8_0, checkpoint::GgmlType::q5_0,
                                         checkpoint::GgmlType::q4_0),
                         [](const testing::TestParamInfo<checkpoint::GgmlType>& param) {
                             return std::string(checkpoint::ggml_type_name(param.param));
                         });

}  // namespace
}  // namespace earshot
