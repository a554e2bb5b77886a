// The plan listing (`earshot debug plan`): kernel counts per entry and backend for the micro model
// and for large-v3 read from a config.json alone, bytes and FLOPs of single kernels against hand
// counts, the TOTAL line, and the refusals.
#include "earshot/engine/backend/plan_listing.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>

#include "earshot/engine/checkpoint/whisper_config.h"
#include "large_v3_config.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using earshot::test::OldKernelsVariable;

using earshot::backend::list_plan;
using earshot::backend::PlanBackend;
using earshot::backend::PlanKernel;
using earshot::backend::PlanListing;
using earshot::backend::PlanListingError;
using earshot::backend::PlanListingRequest;

// large-v3 bound from a folder holding only its config.json (no weights anywhere).
const earshot::model::WhisperBinding& large_v3() {
    static const earshot::model::WhisperBinding binding = [] {
        earshot::test::TempDir dir("earshot-plan-listing");
        std::ofstream(dir.path() / "config.json") << earshot::test::kLargeV3ConfigJson;
        return earshot::model::bind_whisper(earshot::checkpoint::read_whisper_config(dir.path()));
    }();
    return binding;
}

const earshot::model::WhisperBinding& micro() {
    static const earshot::model::WhisperBinding binding = earshot::model::bind_whisper(
        earshot::checkpoint::read_whisper_config(EARSHOT_MICRO_MODEL_DIR));
    return binding;
}

PlanListing listing(const earshot::model::WhisperBinding& binding, const std::string& entry,
                    PlanBackend backend, int64_t rows = 1) {
    PlanListingRequest request;
    request.entry = entry;
    request.backend = backend;
    request.rows = rows;
    return list_plan(binding, request);
}

int count_kernels(const PlanListing& l, const std::string& kernel) {
    int n = 0;
    for (const PlanKernel& k : l.kernels) n += k.kernel == kernel ? 1 : 0;
    return n;
}

int count_in_scope(const PlanListing& l, const std::string& prefix) {
    int n = 0;
    for (const PlanKernel& k : l.kernels) n += k.scope.starts_with(prefix) ? 1 : 0;
    return n;
}

const PlanKernel& find(const PlanListing& l, const std::string& kernel, const std::string& scope) {
    for (const PlanKernel& k : l.kernels) {
        if (k.kernel == kernel && k.scope == scope) return k;
    }
    throw std::runtime_error("no " + kernel + " in " + scope);
}

// A decoder step's layer on CUDA: q, k and v as one fused GEMV with their LayerNorm and both
// cache writes; the self-attention; out_proj (+ residual); the cross q with its LayerNorm; the
// cross-attention; its out_proj; fc1 with its LayerNorm (+ GELU); fc2 (+ residual).
constexpr int kCudaStepKernelsPerLayer = 8;
// Launched separately (EARSHOT_CUDA_OLD_KERNELS=fusion, or rows past the GEMV's): three layer
// norms, eight GEMVs (k, v, q, out; cross q, cross out; fc1, fc2: biases, GELU and residuals in
// them), two cache writes, two one-query attentions.
constexpr int kCudaSeparateStepKernelsPerLayer = 15;
// Besides the layers: the token embedding, the position rows, their sum, the mask's iota and
// `<= pos` (computed once for every layer), the last position taken, the final norm, the head.
// The final norm stays alone on CUDA too: the logits reuse its input's bytes in the arena, which
// the fused GEMV's blocks would still be reading (cuda_step_fusions_test.cpp).
constexpr int kStepKernelsOutsideLayers = 8;

TEST(PlanListing, MicroStepOnCudaIsEightKernelsPerDecoderLayer) {
    const PlanListing l = listing(micro(), "step", PlanBackend::cuda);
    ASSERT_EQ(micro().values.dims.at("DecoderLayers"), 2);
    EXPECT_EQ(l.kernels.size(), 2 * kCudaStepKernelsPerLayer + kStepKernelsOutsideLayers);
    // Layer 1 holds only its own kernels (layer 0 also holds the mask's two, shared after).
    EXPECT_EQ(count_in_scope(l, "decoder_layers[1]."), kCudaStepKernelsPerLayer);
    EXPECT_EQ(count_in_scope(l, "decoder_layers[0]."), kCudaStepKernelsPerLayer + 2);
    EXPECT_EQ(count_kernels(l, "attend_split_keys_f16"), 4);
    EXPECT_EQ(count_kernels(l, "gemv_f16_fused+layer_norm x3+cache_write"), 2);
    EXPECT_EQ(count_kernels(l, "gemv_f16_fused+layer_norm"), 2);  // the cross q's
    EXPECT_EQ(count_kernels(l, "gemv_f16_fused+layer_norm+gelu"), 2);
    EXPECT_EQ(count_kernels(l, "write_at_f16"), 0);
    EXPECT_EQ(count_kernels(l, "layer_norm"), 1);  // the final norm
    EXPECT_EQ(l.cache_dtype, "f16");
    // Split and merged heads of one position are views: nothing runs for them.
    EXPECT_GT(l.views, 0);
}

TEST(PlanListing, OldFusionListsEveryLayerNormLinearAndCacheWriteAlone) {
    const OldKernelsVariable old("fusion");
    const PlanListing l = listing(micro(), "step", PlanBackend::cuda);
    EXPECT_EQ(l.kernels.size(), 2 * kCudaSeparateStepKernelsPerLayer + kStepKernelsOutsideLayers);
    EXPECT_EQ(count_kernels(l, "write_at_f16"), 4);
    EXPECT_EQ(count_kernels(l, "layer_norm"), 2 * 3 + 1);
}

TEST(PlanListing, LargeV3FromAConfigAloneCountsEveryEntry) {
    const auto& lv3 = large_v3();
    EXPECT_EQ(lv3.config.weight_dtype, "f16");
    const PlanListing step = listing(lv3, "step", PlanBackend::cuda);
    EXPECT_EQ(step.kernels.size(), 32 * kCudaStepKernelsPerLayer + kStepKernelsOutsideLayers);
    EXPECT_EQ(count_in_scope(step, "decoder_layers[31]."), kCudaStepKernelsPerLayer);
    // A beam of 5 still fits the GEMV and its fusions; 9 rows take cuBLAS, unfused: to_half, the
    // GEMM and finish_linear for the 7 linears with a bias or an epilogue, no finish for the keys
    // (no bias) and the head.
    EXPECT_EQ(listing(lv3, "step", PlanBackend::cuda, 5).kernels.size(), step.kernels.size());
    EXPECT_EQ(listing(lv3, "step", PlanBackend::cuda, 9).kernels.size(),
              32 * (kCudaSeparateStepKernelsPerLayer + 7 * 2 + 1) + kStepKernelsOutsideLayers + 1);
    // The CPU runs one op per step of the same plan.
    EXPECT_EQ(listing(lv3, "step", PlanBackend::cpu).kernels.size(),
              32 * kCudaSeparateStepKernelsPerLayer + kStepKernelsOutsideLayers);

    // The encoder on CUDA per layer, fused (cuda_encoder_fusions.h): LayerNorm to f16, one
    // q/k/v GEMM, the strided flash attention, out_proj with bias and residual; LayerNorm to f16,
    // fc1, bias + GELU to f16, fc2 with bias and residual: 8. Outside: permute, two convs
    // (im2col, GEMM, bias) with GELU, + positions, the final norm.
    const PlanListing encode = listing(lv3, "encode", PlanBackend::cuda);
    EXPECT_EQ(encode.kernels.size(), 32 * 8 + 1 + 2 * 4 + 1 + 1);
    EXPECT_EQ(count_in_scope(encode, "encoder_layers[7]."), 8);
    EXPECT_EQ(count_kernels(encode, "flash_attention_strided"), 32);
    EXPECT_EQ(count_kernels(encode, "cublaslt_gemm+bias+residual"), 64);
    EXPECT_EQ(count_kernels(encode, "split_heads") + count_kernels(encode, "merge_heads") +
                  count_kernels(encode, "to_half"),
              0);
    {
        // EARSHOT_CUDA_OLD_KERNELS=encoder: norm, q/k/v through cuBLAS (8, the keys without
        // finish), heads split (3), fused attention after q/k/v to f16 (4), heads merged, out
        // (3), norm, fc1 and fc2 (3 each): 27.
        const OldKernelsVariable old("encoder");
        const PlanListing separate = listing(lv3, "encode", PlanBackend::cuda);
        EXPECT_EQ(separate.kernels.size(), 32 * 27 + 1 + 2 * 4 + 1 + 1);
        EXPECT_EQ(count_in_scope(separate, "encoder_layers[7]."), 27);
        EXPECT_EQ(count_kernels(separate, "flash_attention"), 32);
    }
    // On the CPU an encoder layer is 13 ops (norm, q, k, v, 3 splits, attention, merge, out,
    // norm, fc1, fc2), plus permute, conv, gelu, conv, gelu, + positions, final norm.
    EXPECT_EQ(listing(lv3, "encode", PlanBackend::cpu).kernels.size(), 32 * 13 + 7);
    // listen = encode + the cross keys and values (cuda_cross_kv_fusion.h): the audio states to
    // f16 once, then one GEMM batched over every cache's heads, writing all 64 caches with the
    // joined biases, both named after layer 0's k_proj.
    const PlanListing listen = listing(lv3, "listen", PlanBackend::cuda);
    EXPECT_EQ(listen.kernels.size(), encode.kernels.size() + 2);
    EXPECT_EQ(count_kernels(listen, "cublaslt_gemm_cross_kv+bias"), 1);
    EXPECT_EQ(count_in_scope(listen, "decoder_layers[0]."), 2);
    EXPECT_EQ(count_in_scope(listen, "decoder_layers[7]."), 0);
    // Two audio rows: one GEMM batched over the heads per cache and row, v's with its bias.
    const PlanListing listen_rows = listing(lv3, "listen", PlanBackend::cuda, 2);
    EXPECT_EQ(listen_rows.kernels.size(),
              listing(lv3, "encode", PlanBackend::cuda, 2).kernels.size() + 1 + 2 * 32 * 2);
    EXPECT_EQ(count_kernels(listen_rows, "cublaslt_gemm_heads"), 2 * 32);
    EXPECT_EQ(count_kernels(listen_rows, "cublaslt_gemm_heads+bias"), 2 * 32);
    EXPECT_EQ(count_in_scope(listen_rows, "decoder_layers[7]."), 4);
    {
        // EARSHOT_CUDA_OLD_KERNELS=cross_kv: per decoder layer (to_half + GEMM [+ finish for the
        // values' bias]), heads split, written into the cache.
        const OldKernelsVariable old("cross_kv");
        EXPECT_EQ(listing(lv3, "listen", PlanBackend::cuda).kernels.size(),
                  encode.kernels.size() + 32 * (2 + 1 + 1 + 3 + 1 + 1));
    }
    EXPECT_EQ(listing(lv3, "listen", PlanBackend::cpu).kernels.size(), 32 * 13 + 7 + 32 * 6);
}

TEST(PlanListing, BytesAndFlopsOfOneKernelAreTheHandCounts) {
    const PlanListing step = listing(large_v3(), "step", PlanBackend::cuda);
    // fc1 of layer 3: x [1, 1, 1280] f32, w [5120, 1280] f16, bias [5120] f32 -> [1, 1, 5120].
    // Its LayerNorm folded in: also the norm's weight and bias [1280] f32.
    const PlanKernel& fc1 =
        find(step, "gemv_f16_fused+layer_norm+gelu", "decoder_layers[3].mlp.fc1");
    EXPECT_EQ(fc1.read_bytes, 1280 * 4 + 2 * 1280 * 4 + 5120 * 1280 * 2 + 5120 * 4);
    EXPECT_EQ(fc1.written_bytes, 5120 * 4);
    EXPECT_EQ(fc1.flops, 2 * 1280 * 5120);
    ASSERT_EQ(fc1.inputs.size(), 5u);
    EXPECT_EQ(fc1.inputs[3].str(), "f16[5120, 1280]");
    // The cross attention of one query over the f16 audio caches [1, 20, 1500, 64]: 24 spans of
    // 64 keys per head write partial results [20, 24, 64 + 2] f32 that each head's last block
    // reads back and merges into [1, 20, 1, 64].
    const PlanKernel& cross =
        find(step, "attend_split_keys_f16", "decoder_layers[3].encoder_attn.attend");
    EXPECT_EQ(cross.read_bytes, 1280 * 4 + 2 * 20 * 1500 * 64 * 2 + 20 * 24 * 66 * 4);
    EXPECT_EQ(cross.written_bytes, 20 * 24 * 66 * 4 + 1280 * 4);
    EXPECT_EQ(cross.flops, 4 * 20 * 1500 * 64);
    // q, k and v in one launch named after the last (q): x and the norm's weight and
    // bias once, three weights, the biases of q and v (the keys have none); q written as f32, the
    // new position's keys and values into the caches as f16 ([1, 20, 1, 64] each).
    const PlanKernel& qkv = find(step, "gemv_f16_fused+layer_norm x3+cache_write",
                                 "decoder_layers[3].self_attn.q_proj");
    EXPECT_EQ(qkv.read_bytes, 1280 * 4 + 2 * 1280 * 4 + 3 * 1280 * 1280 * 2 + 2 * 1280 * 4);
    EXPECT_EQ(qkv.written_bytes, 1280 * 4 + 2 * 1280 * 2);
    EXPECT_EQ(qkv.flops, 3 * 2 * 1280 * 1280);
    // The embedding reads the token's row, not the table.
    EXPECT_EQ(find(step, "embedding_f16", "").read_bytes, 4 + 1280 * 2);
}

TEST(PlanListing, TheCpuReadsAnF32CheckpointsMatricesAsF32) {
    earshot::model::WhisperBinding f32 = large_v3();
    f32.config.weight_dtype = "f32";
    const PlanListing step = listing(f32, "step", PlanBackend::cpu);
    EXPECT_EQ(step.cache_dtype, "f32");
    const PlanKernel& fc2 = find(step, "linear+residual", "decoder_layers[0].mlp.fc2");
    // x [1, 1, 5120], w [1280, 5120] f32, bias, residual; plus the residual pass over the output.
    EXPECT_EQ(fc2.read_bytes, 5120 * 4 + 1280 * 5120 * 4 + 1280 * 4 + 1280 * 4 + 1280 * 4);
    EXPECT_EQ(fc2.written_bytes, 1280 * 4 + 1280 * 4);
    // CUDA narrows every GEMM operand to f16 whatever the checkpoint holds.
    const PlanListing cuda = listing(f32, "step", PlanBackend::cuda);
    EXPECT_EQ(find(cuda, "gemv_f16_columns+residual", "decoder_layers[0].mlp.fc2").read_bytes,
              5120 * 4 + 1280 * 5120 * 2 + 1280 * 4 + 1280 * 4);
}

TEST(PlanListing, TotalsAddUpAndTheLastLineIsTheTotal) {
    const PlanListing l = listing(large_v3(), "step", PlanBackend::cuda);
    int64_t read = 0;
    for (const PlanKernel& k : l.kernels) read += k.read_bytes;
    EXPECT_EQ(l.read_bytes(), read);
    // Every f16 decoder weight once (14 D^2 per layer) and the head (Vocab x D), plus the caches
    // (keys and values: 448 self and 1500 audio positions per layer, f16), plus small change.
    const double weights = (32.0 * 14 * 1280 * 1280 + 51866.0 * 1280) * 2;
    const double caches = 32.0 * 2 * 1280 * (448 + 1500) * 2;
    EXPECT_NEAR(static_cast<double>(l.read_bytes()), weights + caches, 0.01 * (weights + caches));
    const std::string total = earshot::backend::plan_total_line(l);
    EXPECT_TRUE(std::regex_match(
        total, std::regex(R"(TOTAL: 264 kernels, \d+\.\d\d MiB read, \d+\.\d\d MiB written, )"
                          R"(\d+\.\d\d\d GFLOP)")))
        << total;
    const std::string text = earshot::backend::plan_listing_text(l);
    ASSERT_GT(text.size(), total.size() + 1);
    EXPECT_EQ(text.substr(text.size() - total.size() - 1), total + "\n");
    EXPECT_NE(text.find("attend_split_keys_f16"), std::string::npos);
}

TEST(PlanListing, RefusesUnknownEntriesAndRowsOrTokensOutOfRange) {
    EXPECT_THROW(listing(micro(), "decode", PlanBackend::cpu), PlanListingError);
    EXPECT_THROW(listing(micro(), "step", PlanBackend::cpu, 0), PlanListingError);
    PlanListingRequest request;
    request.entry = "prefill";
    request.tokens = 449;
    EXPECT_THROW(list_plan(micro(), request), PlanListingError);
    try {
        listing(micro(), "decode", PlanBackend::cpu);
    } catch (const PlanListingError& e) {
        EXPECT_NE(std::string(e.what()).find("step, prefill, listen and encode"),
                  std::string::npos);
    }
    EXPECT_EQ(earshot::backend::parse_plan_backend("cuda"), PlanBackend::cuda);
    EXPECT_FALSE(earshot::backend::parse_plan_backend("gpu").has_value());
}

}  // namespace
