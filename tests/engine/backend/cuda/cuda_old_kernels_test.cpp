// EARSHOT_CUDA_OLD_KERNELS (cuda_launch_rules.h): its list parsed, the launch rules choosing a
// decoder step's new kernels (split-key attention, multi-column GEMV) unless it names them, and a
// whole model stepped with the old kernels and with the new ones in one process, agreeing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cuda/cuda_launch_rules.h"
#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using earshot::test::OldKernelsVariable;

using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::backend::cuda::GemvKernel;
using earshot::backend::cuda::old_kernels_from;
using earshot::backend::cuda::OldKernels;
using earshot::backend::cuda::OneQueryKernels;
using namespace earshot::test::backend_data;  // NOLINT: test mel, tokens, relative_error

TEST(CudaOldKernels, TheListNamesAttentionGemvOrAll) {
    const auto both = [](const OldKernels& old) { return old.attention && old.gemv; };
    const OldKernels none = old_kernels_from("");
    EXPECT_FALSE(none.attention || none.gemv);
    const OldKernels attention = old_kernels_from("attention");
    EXPECT_TRUE(attention.attention && !attention.gemv);
    const OldKernels gemv = old_kernels_from("gemv,");
    EXPECT_TRUE(old_kernels_from("fusion").fusion);
    EXPECT_FALSE(old_kernels_from("gemv,attention").fusion);
    EXPECT_TRUE(old_kernels_from("all").fusion);
    EXPECT_TRUE(!gemv.attention && gemv.gemv);
    EXPECT_TRUE(both(old_kernels_from("gemv,attention")));
    EXPECT_TRUE(both(old_kernels_from("all")));
    EXPECT_TRUE(old_kernels_from("encoder,cross_kv").cross_kv);
    EXPECT_FALSE(old_kernels_from("encoder").cross_kv);
    EXPECT_TRUE(old_kernels_from("all").cross_kv);
    EXPECT_TRUE(old_kernels_from("pdl").pdl);
    EXPECT_FALSE(old_kernels_from("pdl").gemv || old_kernels_from("pdl").fusion);
    EXPECT_FALSE(old_kernels_from("gemv,fusion").pdl || none.pdl);
    EXPECT_TRUE(old_kernels_from("all").pdl);
    try {
        old_kernels_from("attention,gemm");
        FAIL() << "a misspelt kernel was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("`gemm`"), std::string::npos) << e.what();
    }
}

TEST(CudaOldKernels, TheRulesPickTheNewKernelsUnlessTheListNamesThem) {
    using earshot::backend::cuda::gemv_kernel;
    using earshot::backend::cuda::one_query_kernels;
    EXPECT_EQ(one_query_kernels(20, 64, {}), OneQueryKernels::split_keys);
    EXPECT_EQ(one_query_kernels(20, 256, {}), OneQueryKernels::split_keys);
    EXPECT_EQ(one_query_kernels(20, 264, {}), OneQueryKernels::one_block_per_head);
    EXPECT_EQ(one_query_kernels(4096, 64, {}), OneQueryKernels::split_keys);
    EXPECT_EQ(one_query_kernels(4097, 64, {}), OneQueryKernels::one_block_per_head);  // counts
    EXPECT_EQ(one_query_kernels(20, 64, old_kernels_from("attention")),
              OneQueryKernels::one_block_per_head);
    EXPECT_EQ(one_query_kernels(20, 64, old_kernels_from("gemv")), OneQueryKernels::split_keys);
    EXPECT_EQ(gemv_kernel(1280, {}), GemvKernel::columns);
    EXPECT_EQ(gemv_kernel(100, {}), GemvKernel::per_column);  // rows of 200 bytes
    EXPECT_EQ(gemv_kernel(1280, old_kernels_from("gemv")), GemvKernel::per_column);
    EXPECT_EQ(gemv_kernel(1280, old_kernels_from("attention")), GemvKernel::columns);
}

// The same checkpoint on two CUDA models, one made with the old kernels: listen, prefill and
// every step give the same logits up to f32 rounding (the GEMV's sums are the same, in the same
// order; the attention's are merged over spans of 64 keys). Every old kernel but the encoder's:
// the fused encoder rounds fc1's output to f16 before its bias and GELU, which the separate
// launches do not (EncoderFusionOnCudaDevice compares those two, within 1e-3).
TEST(OldAndNewStepKernelsOnCudaDevice, StepsGiveTheSameLogits) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    earshot::test::TempDir dir("earshot-cuda-old-kernels");
    earshot::model::RandomCheckpointOptions o{
        .mels = 80, .d = 64, .heads = 4, .enc_layers = 1, .dec_layers = 1, .vocab = 300};
    o.frames = 130;  // 65 audio positions: a full span of 64 keys and one of 1
    o.max_tokens = 12;
    o.dtype = "f16";
    o.seed = 41;
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    std::optional<CudaWhisper> old_model;
    {
        const OldKernelsVariable old("attention,gemv,fusion,cross_caches,host_selection,cross_kv");
        old_model.emplace(checkpoint, 1);
    }
    CudaWhisper new_model(checkpoint, 1);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 2);
    const HostTensor old_audio = old_model->listen(mel);
    EXPECT_LE(relative_error(new_model.listen(mel).f32_values(), old_audio.f32_values()), 1e-6);
    const auto tokens = random_tokens(1, o.max_tokens, o.vocab, 7);
    constexpr int64_t kPrefill = 3;
    EXPECT_LE(relative_error(new_model.prefill(token_tensor(tokens, 0, kPrefill)).f32_values(),
                             old_model->prefill(token_tensor(tokens, 0, kPrefill)).f32_values()),
              1e-6);
    double worst = 0.0;
    for (int64_t pos = kPrefill; pos < o.max_tokens; ++pos) {
        const HostTensor token = token_tensor(tokens, pos, pos + 1);
        const auto at = static_cast<int32_t>(pos);
        const double error = relative_error(new_model.step(token, at).f32_values(),
                                            old_model->step(token, at).f32_values());
        worst = std::max(worst, error);
        EXPECT_LE(error, 1e-5) << "step at position " << pos;
    }
    std::printf("new step kernels against the old ones: worst relative error %.3g\n", worst);
}

// The same checkpoint on two CUDA models, one launching every LayerNorm, linear and cache write
// alone (EARSHOT_CUDA_OLD_KERNELS=fusion): the fused GEMVs compute the same LayerNorms and sums
// in the same order and round the cache values the same way, so listen, prefill, every step and
// a beam of three rows give the same logits bit for bit.
std::vector<float> values(const HostTensor& tensor) {
    const auto v = tensor.f32_values();
    return {v.begin(), v.end()};
}

TEST(FusedAndSeparateStepKernelsOnCudaDevice, StepsAndBeamRowsGiveTheSameLogits) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    earshot::test::TempDir dir("earshot-cuda-fusion");
    earshot::model::RandomCheckpointOptions o{
        .mels = 80, .d = 64, .heads = 4, .enc_layers = 1, .dec_layers = 2, .vocab = 300};
    o.frames = 60;
    o.max_tokens = 10;
    o.dtype = "f16";
    o.seed = 43;
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    std::optional<CudaWhisper> separate;
    {
        const OldKernelsVariable old("fusion");
        separate.emplace(checkpoint, 1);
    }
    CudaWhisper fused(checkpoint, 1);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 4);
    EXPECT_EQ(values(fused.listen(mel)), values(separate->listen(mel)));
    const auto tokens = random_tokens(1, o.max_tokens, o.vocab, 9);
    constexpr int64_t kPrefill = 3;
    EXPECT_EQ(values(fused.prefill(token_tensor(tokens, 0, kPrefill))),
              values(separate->prefill(token_tensor(tokens, 0, kPrefill))));
    // Three beam rows from the one prefilled row, then steps of three tokens.
    fused.expand_batch(3);
    separate->expand_batch(3);
    const auto beam = random_tokens(3, o.max_tokens, o.vocab, 10);
    for (int64_t pos = kPrefill; pos < o.max_tokens; ++pos) {
        const HostTensor token = token_tensor(beam, pos, pos + 1);
        const auto at = static_cast<int32_t>(pos);
        EXPECT_EQ(values(fused.step(token, at)), values(separate->step(token, at)))
            << "step at position " << pos;
    }
}

}  // namespace
