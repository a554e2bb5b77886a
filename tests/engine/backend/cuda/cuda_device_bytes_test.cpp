// The device memory of the fused encoder's q, k, v weights (issue 30): the concatenation
// [3 D, D] that the fused layer's GEMM reads is the only copy on the device; the separate q, k, v
// weights (the separate launches of a tapped run, plans prepared before) read their rows of it.
// Measured with device_bytes() against the same checkpoint with EARSHOT_CUDA_OLD_KERNELS=encoder
// (no concatenation), both models' workspaces first grown by a decode larger than the encode.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::OldKernelsVariable;
using namespace earshot::test::backend_data;  // NOLINT: test mel, tokens, relative_error

TEST(DeviceBytesOnCudaDevice, TheFusedQkvWeightsAreTheOnlyCopy) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    earshot::test::TempDir dir("earshot-cuda-device-bytes");
    const int64_t d = 64;
    const int64_t encoder_layers = 2;
    earshot::model::RandomCheckpointOptions o{.mels = 80,
                                              .d = d,
                                              .heads = 4,
                                              .enc_layers = encoder_layers,
                                              .dec_layers = 1,
                                              .vocab = 4000};
    o.frames = 32;  // 16 audio positions: the encode's workspace stays under the decode's
    o.max_tokens = 8;
    o.dtype = "f16";
    o.seed = 53;
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    std::optional<CudaWhisper> separate;
    {
        const OldKernelsVariable old("encoder");
        separate.emplace(checkpoint, 1);
    }
    CudaWhisper fused(checkpoint, 1);
    EXPECT_EQ(fused.device_bytes(), separate->device_bytes()) << "weights and caches alike";
    const HostTensor mel = test_mel(1, o.mels, o.frames, 1);
    const HostTensor audio = separate->encode(mel);
    // The decode's logits [1, 8, 4000] f32 hold the larger workspace.
    const HostTensor tokens = token_tensor(random_tokens(1, o.max_tokens, o.vocab, 9), 0, 8);
    (void)fused.decode(tokens, audio);
    (void)separate->decode(tokens, audio);
    const int64_t fused_before = fused.device_bytes();
    const int64_t separate_before = separate->device_bytes();
    const HostTensor want = separate->encode(mel);
    const HostTensor got = fused.encode(mel);
    // The separate launches hold nothing more after their encode: the workspace did not grow.
    ASSERT_EQ(separate->device_bytes(), separate_before);
    // The fused model: only the q, k, v biases rounded to f16 [3 D] per layer are new; the
    // weights moved into the concatenation (3 D D f16 per layer more, were they copied).
    const int64_t biases = encoder_layers * 3 * d * 2;
    std::printf("device bytes: separate %lld, fused %lld before encode, %lld after (+%lld)\n",
                static_cast<long long>(separate_before), static_cast<long long>(fused_before),
                static_cast<long long>(fused.device_bytes()),
                static_cast<long long>(fused.device_bytes() - fused_before));
    EXPECT_EQ(fused.device_bytes() - fused_before, biases);
    EXPECT_EQ(fused_before, separate_before);
    // The same encoder states as the separate launches, and the decode before (whose plan did
    // not read q, k, v) still runs, as does a second encode.
    EXPECT_LE(relative_error(got.f32_values(), want.f32_values()), 1e-3);
    EXPECT_LE(relative_error(fused.encode(mel).f32_values(), want.f32_values()), 1e-3);
}

}  // namespace
