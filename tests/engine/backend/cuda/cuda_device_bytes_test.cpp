// The device memory of the fused encoder's q, k, v weights and of listen's cross keys and values
// (issue 30): the concatenation [3 D, D] that the fused layer's GEMM reads is the only copy on the
// device (the separate q, k, v weights, read by the separate launches of a tapped run and plans
// prepared before, are rows of it), as are the joined cross k/v weights [2 L, D, D]; the cross
// caches are one allocation. Measured with device_bytes() against the same checkpoint with
// EARSHOT_CUDA_OLD_KERNELS=encoder or cross_kv (nothing joined), and with the emulated device's
// count of allocations.
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

// Every cross cache in one allocation and every cross k/v weight in one join: listen adds only the
// joined f16 biases [2 L, D] (k's zeros included) to what the separate launches hold, and a resize
// to two rows allocates each self-attention cache and one block of all the cross caches.
TEST(DeviceBytesOnCudaDevice, TheCrossCachesAndWeightsAreOneAllocationEach) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    earshot::test::TempDir dir("earshot-cuda-cross-bytes");
    const int64_t d = 64;
    const int64_t heads = 4;
    const int64_t layers = 2;
    earshot::model::RandomCheckpointOptions o{
        .mels = 80, .d = d, .heads = heads, .enc_layers = 1, .dec_layers = layers, .vocab = 300};
    o.frames = 32;  // 16 audio positions
    o.max_tokens = 8;
    o.dtype = "f16";
    o.seed = 55;
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    std::optional<CudaWhisper> separate;
    {
        const OldKernelsVariable old("cross_kv");
        separate.emplace(checkpoint, 1);
    }
    CudaWhisper fused(checkpoint, 1);
    EXPECT_EQ(fused.device_bytes(), separate->device_bytes()) << "weights and caches alike";
    const HostTensor mel = test_mel(1, o.mels, o.frames, 2);
    separate->listen_on_device(mel);
    fused.listen_on_device(mel);
    const int64_t biases = 2 * layers * d * 2;
    std::printf("device bytes after listen: separate %lld, fused %lld (+%lld)\n",
                static_cast<long long>(separate->device_bytes()),
                static_cast<long long>(fused.device_bytes()),
                static_cast<long long>(fused.device_bytes() - separate->device_bytes()));
    EXPECT_EQ(fused.device_bytes() - separate->device_bytes(), biases);
    const HostTensor tokens = token_tensor(random_tokens(1, 3, o.vocab, 9), 0, 3);
    EXPECT_LE(
        relative_error(fused.prefill(tokens).f32_values(), separate->prefill(tokens).f32_values()),
        1e-3);

    // One row of each cache, f16: [H, MaxTokens, Dh] and [H, Audio, Dh].
    const int64_t dh = d / heads;
    const int64_t self_row = heads * o.max_tokens * dh * 2;
    const int64_t cross_row = heads * (o.frames / 2) * dh * 2;
    const std::optional<size_t> made = earshot::test::emulator_allocations_made();
    const int64_t before = fused.device_bytes();
    fused.resize_batch(2);
    EXPECT_EQ(fused.device_bytes() - before, 2 * layers * (self_row + cross_row));
    if (made) {
        EXPECT_EQ(*earshot::test::emulator_allocations_made() - *made,
                  static_cast<size_t>(2 * layers + 1));
    }
}

}  // namespace
