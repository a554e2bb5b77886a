// listen's fused cross keys and values (cuda_cross_kv_fusion.h): the strided-batched cuBLASLt
// GEMM alone against double loops (each head's [A, Dh] written into a cache [B, H, Audio, Dh] at a
// start position, v's f16 bias per head, nothing outside written); the whole listen against the
// CPU backend and against the separate launches (EARSHOT_CUDA_OLD_KERNELS=cross_kv) through the
// prefill logits that read the caches; one cuBLASLt GEMM for all the caches of one audio row
// against one per cache (the same caches); beam rows and resizes after it against the CPU; and
// the listing's kernel counts at large-v3's size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "kernel_table_fixture.h"
#include "large_v3_config.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using namespace earshot::test::kernel_table;  // NOLINT: the shared helpers of these tests

class CrossKvKernelsOnCudaDevice : public KernelTableFixture {};

// x [A, D] against w [D, D] as H heads of Dh: head h's [A, Dh] = x w[h Dh : (h + 1) Dh]^T + bias
// [h Dh : (h + 1) Dh] lands at (h, start) of a cache [H, Audio, Dh]; the positions before start
// and after start + A keep what was there. With and without the bias.
TEST_F(CrossKvKernelsOnCudaDevice, BatchedGemmWritesEachHeadIntoTheCache) {
    const size_t a = 23;
    const size_t heads = 3;
    const size_t dh = 16;
    const size_t d = heads * dh;
    const size_t audio = 30;
    const size_t start = 4;
    const std::vector<uint16_t> x = to_f16(random_values(a * d, 60));
    const std::vector<uint16_t> w = to_f16(random_values(d * d, 61));
    const std::vector<uint16_t> bias = to_f16(random_values(d, 62));
    const std::vector<uint16_t> before = to_f16(random_values(heads * audio * dh, 63, 5.0F));
    for (const bool with_bias : {true, false}) {
        std::vector<double> want(before.size());
        for (size_t i = 0; i < before.size(); ++i) want[i] = D(f16_to_f32(before[i]));
        for (size_t h = 0; h < heads; ++h) {
            for (size_t t = 0; t < a; ++t) {
                for (size_t e = 0; e < dh; ++e) {
                    double sum = with_bias ? D(f16_to_f32(bias[h * dh + e])) : 0.0;
                    for (size_t p = 0; p < d; ++p) {
                        sum += D(f16_to_f32(x[t * d + p])) * D(f16_to_f32(w[(h * dh + e) * d + p]));
                    }
                    want[(h * audio + start + t) * dh + e] = sum;
                }
            }
        }
        uint16_t* cache = device(before);
        k_->lt_gemm_batched(device(x), device(w), with_bias ? device(bias) : nullptr,
                            cache + start * dh, I(a), I(d), I(dh), I(heads), 0, I(dh * d),
                            I(audio * dh), I(dh));
        EXPECT_WITHIN(
            compare<float>(host_f16(cache, want.size()), want,
                           [](double v) { return f16_tolerance(v) + 1e-5; }),
            std::string("lt_gemm_batched ") + (with_bias ? "with" : "without") + " the bias");
    }
}

// listen's one GEMM: 4 caches [H, Audio, Dh] one after another, joined weights [4, D, D] and
// biases [4, D] (the keys' zeros), batch 4 H at one stride each: block (c, h) = x w_c[h Dh :
// (h + 1) Dh]^T + bias_c[h Dh : (h + 1) Dh] lands at (c, h, start), every other position kept.
TEST_F(CrossKvKernelsOnCudaDevice, OneBatchedGemmWritesEveryCacheOfTheJoinedLayout) {
    const size_t a = 23;
    const size_t caches = 4;
    const size_t heads = 3;
    const size_t dh = 16;
    const size_t d = heads * dh;
    const size_t audio = 30;
    const size_t start = 4;
    const std::vector<uint16_t> x = to_f16(random_values(a * d, 64));
    const std::vector<uint16_t> w = to_f16(random_values(caches * d * d, 65));
    std::vector<uint16_t> bias = to_f16(random_values(caches * d, 66));
    for (size_t c = 0; c < caches; c += 2) {
        std::fill_n(bias.begin() + static_cast<std::ptrdiff_t>(c * d), d, uint16_t{0});
    }
    const std::vector<uint16_t> before =
        to_f16(random_values(caches * heads * audio * dh, 67, 5.0F));
    std::vector<double> want(before.size());
    for (size_t i = 0; i < before.size(); ++i) want[i] = D(f16_to_f32(before[i]));
    for (size_t c = 0; c < caches; ++c) {
        for (size_t h = 0; h < heads; ++h) {
            for (size_t t = 0; t < a; ++t) {
                for (size_t e = 0; e < dh; ++e) {
                    const size_t row = c * d + h * dh + e;  // of w [caches D, D] and bias
                    double sum = D(f16_to_f32(bias[row]));
                    for (size_t p = 0; p < d; ++p) {
                        sum += D(f16_to_f32(x[t * d + p])) * D(f16_to_f32(w[row * d + p]));
                    }
                    want[((c * heads + h) * audio + start + t) * dh + e] = sum;
                }
            }
        }
    }
    uint16_t* joined = device(before);
    k_->lt_gemm_batched(device(x), device(w), device(bias), joined + start * dh, I(a), I(d), I(dh),
                        I(caches * heads), 0, I(dh * d), I(audio * dh), I(dh));
    EXPECT_WITHIN(compare<float>(host_f16(joined, want.size()), want,
                                 [](double v) { return f16_tolerance(v) + 1e-5; }),
                  "lt_gemm_batched over 4 caches");
}

using earshot::backend::CpuWhisper;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::OldKernelsVariable;
using namespace earshot::test::backend_data;  // NOLINT: test mel, tokens, relative_error

// As the parity tests (cuda_backend_test.cpp): f16 caches and activations against f32.
constexpr double kLogitsTolerance = 2e-3;
// Against the separate launches: the same f16 GEMM operands and f16 caches, but v's bias rounded
// to f16 before it is added (the separate launches add it in f32), so an f16 ulp of a cache value
// here and there.
constexpr double kOldKernelsTolerance = 1e-3;

TEST(CrossKvFusionOnCudaDevice, PrefillAfterListenMatchesTheCpuAndTheSeparateLaunches) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    // Two decoder layers (the run of 4 cache writes), head sizes 16 and 32, batch 1 and 2.
    struct Case {
        const char* name;
        int64_t d, heads;
        const char* dtype;
    };
    for (const Case c : {Case{"f16 Dh 16", 64, 4, "f16"}, Case{"f32 Dh 32", 96, 3, "f32"}}) {
        earshot::test::TempDir dir("earshot-cuda-cross-kv");
        earshot::model::RandomCheckpointOptions o{
            .mels = 80, .d = c.d, .heads = c.heads, .enc_layers = 1, .dec_layers = 2, .vocab = 300};
        o.frames = 66;
        o.max_tokens = 8;
        o.dtype = c.dtype;
        o.seed = 52;
        earshot::model::write_random_checkpoint(dir.path(), o);
        const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
        for (int64_t batch = 1; batch <= 2; ++batch) {
            std::optional<CudaWhisper> separate;
            {
                const OldKernelsVariable old("cross_kv");
                separate.emplace(checkpoint, batch);
            }
            CudaWhisper fused(checkpoint, batch);
            CpuWhisper cpu(checkpoint, batch);
            const HostTensor mel = test_mel(batch, o.mels, o.frames, 2);
            cpu.listen(mel);
            fused.listen(mel);
            separate->listen(mel);
            const HostTensor tokens = token_tensor(random_tokens(batch, 4, o.vocab, 7), 0, 4);
            const HostTensor want = cpu.prefill(tokens);
            const HostTensor got = fused.prefill(tokens);
            const HostTensor old = separate->prefill(tokens);
            ASSERT_EQ(got.shape(), want.shape());
            const double cpu_error = relative_error(got.f32_values(), want.f32_values());
            const double old_error = relative_error(got.f32_values(), old.f32_values());
            const double old_cpu_error = relative_error(old.f32_values(), want.f32_values());
            std::printf(
                "%s batch %lld: prefill logits after the fused listen against the CPU %.3g "
                "(separate %.3g), against the separate launches %.3g\n",
                c.name, static_cast<long long>(batch), cpu_error, old_cpu_error, old_error);
            EXPECT_LE(cpu_error, kLogitsTolerance) << c.name << " batch " << batch;
            EXPECT_LE(old_error, kOldKernelsTolerance) << c.name << " batch " << batch;
        }
    }
}

// Two decoder layers (four cross caches), D 64 in 4 heads of 16, 33 audio positions, f16.
earshot::model::RandomCheckpointOptions two_decoder_layers() {
    earshot::model::RandomCheckpointOptions o{
        .mels = 80, .d = 64, .heads = 4, .enc_layers = 1, .dec_layers = 2, .vocab = 300};
    o.frames = 66;
    o.max_tokens = 8;
    o.dtype = "f16";
    o.seed = 54;
    return o;
}

std::vector<float> values(const HostTensor& tensor) {
    const std::span<const float> v = tensor.f32_values();
    return {v.begin(), v.end()};
}

// The cuBLASLt GEMMs `run` launches on the emulated device (nullopt on a GPU: no counter).
template <typename Run>
std::optional<size_t> lt_gemms_of(Run run) {
    const std::optional<size_t> before = earshot::test::emulator_lt_matmuls();
    run();
    const std::optional<size_t> after = earshot::test::emulator_lt_matmuls();
    if (!before || !after) return std::nullopt;
    return *after - *before;
}

// One audio row: listen's cross keys and values are one cuBLASLt GEMM beside the encoder's (its
// q k v, out_proj, fc1 and fc2 GEMMs per layer), run step by step, captured and replayed. Two
// rows: one GEMM per cache and row. A model whose cross caches have room for two rows (made at
// batch 2, then resized to 1) lays them out [cache][2 rows][...], so its listen of one row runs
// one GEMM per cache: the prefill after it reads the same caches as after the one GEMM.
TEST(CrossKvFusionOnCudaDevice, OneAudioRowIsOneGemmForEveryCache) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    earshot::test::TempDir dir("earshot-cuda-cross-kv-gemms");
    const earshot::model::RandomCheckpointOptions o = two_decoder_layers();
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    const int64_t caches = 2 * o.dec_layers;
    const size_t encoder_gemms = static_cast<size_t>(4 * o.enc_layers);
    const HostTensor tokens = token_tensor(random_tokens(1, 3, o.vocab, 8), 0, 3);
    std::vector<float> after_one_gemm;
    for (int64_t batch = 1; batch <= 2; ++batch) {
        CudaWhisper gpu(checkpoint, batch);
        const HostTensor mel = test_mel(batch, o.mels, o.frames, 3);
        const std::optional<size_t> encode = lt_gemms_of([&] { (void)gpu.encode(mel); });
        if (encode) {
            EXPECT_EQ(*encode, encoder_gemms);
        }
        const size_t cross = batch == 1 ? 1 : static_cast<size_t>(caches * batch);
        for (int run = 0; run < 3; ++run) {
            const std::optional<size_t> listen = lt_gemms_of([&] { gpu.listen_on_device(mel); });
            if (listen) {
                EXPECT_EQ(*listen, encoder_gemms + cross) << "batch " << batch << " run " << run;
            }
        }
        if (batch == 1) after_one_gemm = values(gpu.prefill(tokens));
    }
    CudaWhisper wide(checkpoint, 2);
    wide.resize_batch(1);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 3);
    const std::optional<size_t> listen = lt_gemms_of([&] { wide.listen_on_device(mel); });
    if (listen) {
        EXPECT_EQ(*listen, encoder_gemms + static_cast<size_t>(caches));
    }
    const std::vector<float> after_per_cache = values(wide.prefill(tokens));
    ASSERT_EQ(after_per_cache.size(), after_one_gemm.size());
    if (listen) {
        // The emulated GEMMs sum each value alike in both: the same f16 caches, bit for bit.
        EXPECT_EQ(after_per_cache, after_one_gemm);
    } else {
        EXPECT_LE(relative_error(after_per_cache, after_one_gemm), kOldKernelsTolerance);
    }
}

// After the fused listen of one row, a beam's rows (shared cross caches) expand, step and reorder
// like the CPU's; a listen of all three rows (each cache's row copied out first, the cross caches
// moved together to room for three rows) and, back at one row, a listen through the per-cache
// GEMMs (the caches keep their room for three) give the CPU's prefill logits.
TEST(CrossKvFusionOnCudaDevice, BeamRowsAndResizesAfterTheFusedListenMatchTheCpu) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    earshot::test::TempDir dir("earshot-cuda-cross-kv-beam");
    const earshot::model::RandomCheckpointOptions o = two_decoder_layers();
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    CpuWhisper cpu(checkpoint, 1);
    CudaWhisper gpu(checkpoint, 1);
    auto same = [](const HostTensor& got, const HostTensor& want, const std::string& what) {
        ASSERT_EQ(got.shape(), want.shape()) << what;
        const double error = relative_error(got.f32_values(), want.f32_values());
        std::printf("%s: against the CPU %.3g\n", what.c_str(), error);
        EXPECT_LE(error, kLogitsTolerance) << what;
    };
    const HostTensor one = test_mel(1, o.mels, o.frames, 4);
    cpu.listen(one);
    gpu.listen(one);
    const HostTensor prompt = token_tensor(random_tokens(1, 2, o.vocab, 5), 0, 2);
    same(gpu.prefill(prompt), cpu.prefill(prompt), "prefill of one row");
    cpu.expand_batch(3);
    gpu.expand_batch(3);
    const auto beam = random_tokens(3, 4, o.vocab, 6);
    for (int64_t pos = 2; pos < 6; ++pos) {
        const HostTensor token = token_tensor(beam, pos - 2, pos - 1);
        const auto at = static_cast<int32_t>(pos);
        same(gpu.step(token, at), cpu.step(token, at), "beam step at " + std::to_string(pos));
        if (pos == 3) {
            const std::vector<int64_t> order = {2, 0, 0};
            cpu.reorder_batch(order);
            gpu.reorder_batch(order);
        }
    }
    const HostTensor three = test_mel(3, o.mels, o.frames, 5);
    cpu.listen(three);
    gpu.listen(three);
    const HostTensor prompts = token_tensor(random_tokens(3, 2, o.vocab, 7), 0, 2);
    same(gpu.prefill(prompts), cpu.prefill(prompts), "prefill of three rows after their listen");
    cpu.resize_batch(1);
    gpu.resize_batch(1);
    cpu.listen(one);
    const std::optional<size_t> gemms = lt_gemms_of([&] { gpu.listen(one); });
    if (gemms) {
        EXPECT_EQ(*gemms, static_cast<size_t>(4 * o.enc_layers + 2 * o.dec_layers));
    }
    same(gpu.prefill(prompt), cpu.prefill(prompt), "prefill of one row after the resize");
}

int64_t count_named(const earshot::backend::PlanListing& l, const std::string& prefix) {
    int64_t n = 0;
    for (const auto& k : l.kernels) n += k.kernel.starts_with(prefix) ? 1 : 0;
    return n;
}

const earshot::backend::PlanKernel& find(const earshot::backend::PlanListing& l,
                                         const std::string& kernel, const std::string& scope) {
    for (const auto& k : l.kernels) {
        if (k.kernel == kernel && k.scope == scope) return k;
    }
    throw std::runtime_error("no " + kernel + " in " + scope);
}

// The linears of decoder layer 3's cross keys and values, whose scopes name the per-cache GEMMs,
// and layer 0's key, whose scope names the one GEMM of them all.
constexpr const char* kKeyScope = "decoder_layers[3].encoder_attn.k_proj";
constexpr const char* kValueScope = "decoder_layers[3].encoder_attn.v_proj";
constexpr const char* kFirstKeyScope = "decoder_layers[0].encoder_attn.k_proj";

// large-v3 (A 1500, D 1280, 32 decoder layers): one row is one to_half and one GEMM for all 64
// caches instead of 9 launches a layer, reading the audio states once, the joined weights and the
// joined f16 biases (k's zeros included); two rows are one GEMM per cache and row, as by hand.
TEST(CrossKvFusion, TheListingCountsTheFusedKernels) {
    const auto binding = earshot::model::bind_whisper(earshot::test::large_v3_config());
    earshot::backend::PlanListingRequest request;
    request.entry = "listen";
    request.backend = earshot::backend::PlanBackend::cuda;
    const auto fused = earshot::backend::list_plan(binding, request);
    std::optional<earshot::backend::PlanListing> separate;
    {
        const OldKernelsVariable old("cross_kv");
        separate.emplace(earshot::backend::list_plan(binding, request));
    }
    const int64_t layers = 32, a = 1500, d = 1280, caches = 2 * layers;
    EXPECT_EQ(count_named(fused, "cublaslt_gemm_cross_kv"), 1);
    EXPECT_EQ(count_named(fused, "cublaslt_gemm_heads"), 0);
    EXPECT_EQ(count_named(*separate, "cublaslt_gemm_cross_kv"), 0);
    EXPECT_EQ(count_named(*separate, "cublaslt_gemm_heads"), 0);
    EXPECT_EQ(static_cast<int64_t>(separate->kernels.size() - fused.kernels.size()),
              9 * layers - 2);
    const auto& all = find(fused, "cublaslt_gemm_cross_kv+bias", kFirstKeyScope);
    EXPECT_EQ(all.read_bytes, a * d * 2 + caches * d * d * 2 + caches * d * 2);
    EXPECT_EQ(all.written_bytes, caches * a * d * 2);
    EXPECT_EQ(all.flops, caches * 2 * a * d * d);

    request.rows = 2;
    const auto rows = earshot::backend::list_plan(binding, request);
    EXPECT_EQ(count_named(rows, "cublaslt_gemm_heads"), 2 * caches);
    EXPECT_EQ(count_named(rows, "cublaslt_gemm_cross_kv"), 0);
    const auto& v = find(rows, "cublaslt_gemm_heads+bias", kValueScope);
    EXPECT_EQ(v.read_bytes, a * d * 2 + d * d * 2 + d * 2);
    EXPECT_EQ(v.written_bytes, a * d * 2);
    EXPECT_EQ(v.flops, 2 * a * d * d);
    const auto& k = find(rows, "cublaslt_gemm_heads", kKeyScope);
    EXPECT_EQ(k.read_bytes, a * d * 2 + d * d * 2);
}

}  // namespace
