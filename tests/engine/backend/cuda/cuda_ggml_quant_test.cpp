// A quantized ggml checkpoint on the CUDA backend: its dequantized f16 weights are uploaded as any
// f16 checkpoint's, and the logits match the CPU backend's on the same weights (the blocks decoded
// to f32). Skips on a machine without a CUDA driver or device, as every CUDA test does
// (cuda_test_device.h); the emulated device runs it in the cpu-labelled `cuda_backend_emulated`
// test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
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

}  // namespace
}  // namespace earshot
