// The plan listing's cache override: a CPU step over f32 caches (what CpuWhisper keeps unless
// told f16) reads twice the cache bytes of one over f16 caches; CUDA keeps only f16 caches.
#include <gtest/gtest.h>

#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/checkpoint/whisper_config.h"

namespace {

using earshot::backend::PlanBackend;
using earshot::backend::PlanListingRequest;

const earshot::model::WhisperBinding& micro() {
    static const earshot::model::WhisperBinding binding = earshot::model::bind_whisper(
        earshot::checkpoint::read_whisper_config(EARSHOT_MICRO_MODEL_DIR));
    return binding;
}

int64_t cache_bytes_read(const earshot::backend::PlanListing& listing) {
    int64_t bytes = 0;
    for (const auto& k : listing.kernels) {
        if (k.op == "attention") bytes += k.read_bytes;
    }
    return bytes;
}

TEST(PlanListingCaches, TheCpuCachesCanBeListedAsF32OrF16) {
    PlanListingRequest request;
    request.entry = "step";
    request.backend = PlanBackend::cpu;
    const auto by_checkpoint = earshot::backend::list_plan(micro(), request);  // f16 weights
    EXPECT_EQ(by_checkpoint.cache_dtype, "f16");
    request.cache_dtype = "f32";
    const auto f32 = earshot::backend::list_plan(micro(), request);
    EXPECT_EQ(f32.cache_dtype, "f32");
    // Per decoder layer (2): self keys and values [1, 4, 448, 16], audio ones [1, 4, 300, 16].
    const int64_t cache_values = 2 * 2 * 4 * (448 + 300) * 16;
    EXPECT_EQ(cache_bytes_read(f32) - cache_bytes_read(by_checkpoint), cache_values * 2);
    request.backend = PlanBackend::cuda;
    EXPECT_THROW(earshot::backend::list_plan(micro(), request), earshot::backend::PlanListingError);
    request.cache_dtype = "f16";
    EXPECT_EQ(earshot::backend::list_plan(micro(), request).cache_dtype, "f16");
}

}  // namespace
