// The choices the CUDA module makes when it launches a plan step (which path a linear and an
// attention take, what the caches and operands are stored as), in plain C++: the module's
// interpreter (module/cuda_device_model.cpp) and `earshot debug plan` (cuda_plan_kernels.cpp)
// both decide from these functions, so the listing names the kernels the module launches.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace earshot::backend::cuda {

// The decoder caches are f16 on the device (half the memory and the bytes a step reads).
inline constexpr int64_t kCacheValueBytes = 2;

// The most rows gemv_f16 takes (a beam of 5 and some room); more rows go through cuBLAS.
inline constexpr int64_t kMaxGemvRows = 8;

// Shared memory a kernel may take without opting in to more (CUDA programming guide, 48 KiB).
inline constexpr int64_t kSharedBytesLimit = 48 * 1024;

// The fused attention's tiles (module/kernels_flash_attention.cu): 64 queries per block in 4
// warps of 16 rows, keys and values in tiles of 32, head sizes multiples of 16 up to 64.
inline constexpr int64_t kFlashQueryTile = 64;
inline constexpr int64_t kFlashKeyTile = 32;
inline constexpr int64_t kFlashWarps = 4;
inline constexpr int64_t kFlashRowsPerWarp = 16;
inline constexpr int64_t kMaxFlashHeadSize = 64;

// Bytes of shared memory the fused attention takes for head size dh: q [64, Dh], k and v
// [32, Dh] f16; per warp scores [16, 32] f32, probabilities [16, 32] f16, output [16, Dh] f32,
// running max and sum [16] f32.
constexpr int64_t flash_shared_bytes(int64_t dh) {
    return kFlashQueryTile * dh * 2 + 2 * kFlashKeyTile * dh * 2 +
           kFlashWarps * kFlashRowsPerWarp * (kFlashKeyTile * 4 + kFlashKeyTile * 2 + dh * 4 + 8);
}

// Whether the fused attention kernel takes head size dh.
constexpr bool flash_attention_fits(int64_t dh) {
    return dh % 16 == 0 && dh >= 16 && dh <= kMaxFlashHeadSize &&
           flash_shared_bytes(dh) <= kSharedBytesLimit;
}

// Whether the one-query attention kernel takes K keys of head size dh: q [Dh], scores [K] and 32
// floats for its reductions in shared memory.
constexpr bool attend_one_query_fits(int64_t k_len, int64_t dh) {
    return (dh + k_len + 32) * 4 <= kSharedBytesLimit;
}

// EARSHOT_CUDA_FUSED_ATTENTION=0 materialises the scores through cuBLAS instead (to compare).
inline bool fused_attention_enabled() {
    const char* fused = std::getenv("EARSHOT_CUDA_FUSED_ATTENTION");
    return fused == nullptr || std::string_view(fused) != "0";
}

// How a linear [m, k] x [n, k]^T runs.
enum class LinearPath {
    gemv,  // m <= kMaxGemvRows: gemv_f16, one kernel that reads the weights once, epilogue in it
    gemm,  // to_half of x, a cuBLAS GEMM, then finish_linear when it has a bias or an epilogue
};

constexpr LinearPath linear_path(int64_t rows) {
    return rows <= kMaxGemvRows ? LinearPath::gemv : LinearPath::gemm;
}

// How an attention q [B, H, Q, Dh] over keys and values [B, H, K, Dh] runs.
enum class AttentionPath {
    one_query_f16,  // Q = 1 over the f16 caches: attend_one_query, one kernel
    one_query_f32,  // Q = 1 over keys and values just computed (f32): attend_one_query
    fused,          // to_half of q (and of k, v unless cached), then flash_attention
    cublas,         // to_half as above, a batched GEMM, softmax_rows_half, a batched GEMM
};

// `k_cached` / `v_cached`: whether keys / values are a decoder cache (f16); `fused_enabled`: the
// fused kernel is allowed (fused_attention_enabled()).
constexpr AttentionPath attention_path(int64_t q_len, int64_t k_len, int64_t dh, bool k_cached,
                                       bool v_cached, bool fused_enabled) {
    if (q_len == 1 && k_cached == v_cached && attend_one_query_fits(k_len, dh)) {
        return k_cached ? AttentionPath::one_query_f16 : AttentionPath::one_query_f32;
    }
    return fused_enabled && flash_attention_fits(dh) ? AttentionPath::fused : AttentionPath::cublas;
}

}  // namespace earshot::backend::cuda
