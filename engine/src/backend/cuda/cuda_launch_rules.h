// The choices the CUDA module makes when it launches a plan step (which path a linear and an
// attention take, what the caches and operands are stored as), in plain C++: the module's
// interpreter (module/cuda_device_model.cpp) and `earshot debug plan` (cuda_plan_kernels.cpp)
// both decide from these functions, so the listing names the kernels the module launches.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "backend/cuda/fused_gemv.h"

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

// The encoder's flash attention on heads read in place (module/kernels_flash_strided.cu): q, k
// and v rows of one [T, 3 D] f16 buffer, 64 queries per block in 4 warps, key and value tiles of
// 32 loaded asynchronously in two buffers; rows padded by 8 halves (16 bytes) so that the rows a
// warp reads start in different banks. Per warp: scores [16, 36] f32, probabilities [16, 40] f16,
// the row rescales [16] f32.
inline constexpr int64_t kStridedFlashRowPad = 8;
constexpr int64_t flash_strided_shared_bytes(int64_t dh) {
    const int64_t row = (dh + kStridedFlashRowPad) * 2;
    return kFlashQueryTile * row + 2 * 2 * kFlashKeyTile * row +
           kFlashWarps * kFlashRowsPerWarp *
               ((kFlashKeyTile + 4) * 4 + (kFlashKeyTile + 8) * 2 + 4);
}

// Whether it takes heads of size dh in rows of width d (16-byte copies need d % 8 == 0).
constexpr bool flash_strided_fits(int64_t dh, int64_t d) {
    return dh % 16 == 0 && dh >= 16 && dh <= kMaxFlashHeadSize && d % 8 == 0 && d % dh == 0 &&
           flash_strided_shared_bytes(dh) <= kSharedBytesLimit;
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

// EARSHOT_CUDA_OLD_KERNELS: a comma-separated list of `attention`, `gemv`, `fusion`,
// `cross_caches`, `encoder` (an encoder layer's separate launches), `host_selection` (a step's
// logits copied back and its tokens chosen on the host), `cross_kv` (listen's cross keys and
// values as each linear's own launches, split and written apart) or `all` that
// runs a decoder step's one-query attention and few-row linears on the kernels the split-key
// attention and the multi-column GEMV replaced, and (`fusion`) its LayerNorms, linears and cache
// writes as separate launches instead of the fused GEMV (issue 30), so that one process can
// compare old and new.
// Unset or empty: the new kernels. Any other name throws std::invalid_argument (a typo would
// otherwise compare new with new).
struct OldKernels {
    bool attention = false;  // attend_one_query: one block per (batch, head)
    bool gemv = false;       // gemv_f16: one column per warp, x re-read for each
    bool fusion = false;     // no fused GEMV: layer_norm, each linear and write_at launched alone
    bool cross_caches = false;    // every beam row its own copy of the cross caches
    bool encoder = false;         // an encoder layer as its 27 separate launches, not the fused 8
    bool host_selection = false;  // a step's logits copied back, tokens chosen on the host
    bool cross_kv = false;        // listen's cross k/v: linear, split_heads and cache write apart
    bool pdl = false;  // a step's kernels launched plainly, not as programmatic dependent launches
};

inline OldKernels old_kernels_from(std::string_view list) {
    OldKernels old;
    size_t begin = 0;
    while (begin <= list.size()) {
        const size_t comma = list.find(',', begin);
        const size_t end = comma == std::string_view::npos ? list.size() : comma;
        const std::string_view name = list.substr(begin, end - begin);
        const bool all = name == "all";
        if (!all && !name.empty() && name != "attention" && name != "gemv" && name != "fusion" &&
            name != "cross_caches" && name != "encoder" && name != "host_selection" &&
            name != "cross_kv" && name != "pdl") {
            throw std::invalid_argument("EARSHOT_CUDA_OLD_KERNELS=" + std::string(list) +
                                        " names `" + std::string(name) +
                                        "`; it takes attention, gemv, fusion, cross_caches, "
                                        "encoder, host_selection, cross_kv, pdl or all, "
                                        "comma-separated");
        }
        old.attention = old.attention || all || name == "attention";
        old.gemv = old.gemv || all || name == "gemv";
        old.fusion = old.fusion || all || name == "fusion";
        old.cross_caches = old.cross_caches || all || name == "cross_caches";
        old.encoder = old.encoder || all || name == "encoder";
        old.host_selection = old.host_selection || all || name == "host_selection";
        old.cross_kv = old.cross_kv || all || name == "cross_kv";
        old.pdl = old.pdl || all || name == "pdl";
        begin = end + 1;
    }
    return old;
}

inline OldKernels old_kernels_enabled() {
    const char* list = std::getenv("EARSHOT_CUDA_OLD_KERNELS");
    return old_kernels_from(list == nullptr ? std::string_view() : std::string_view(list));
}

// The one-query attention split over the keys (module/kernels_attend_split_keys.cu), one kernel:
// a block per (batch-head, 64 keys), head sizes up to 256, partial results [BH, spans, Dh + 2]
// f32 (each span's unnormalised output, max and sum) that the last block of each (batch, head)
// merges, found by a count per (batch, head) in a buffer of kMaxSplitKeyRows the module keeps.
inline constexpr int64_t kSplitKeysPerBlock = 64;
inline constexpr int64_t kMaxSplitHeadSize = 256;
inline constexpr int64_t kMaxSplitKeyRows = 4096;  // batch x heads: 8 x 20 for a beam on large-v3

constexpr bool attend_split_keys_fits(int64_t bh, int64_t dh) {
    return bh <= kMaxSplitKeyRows && dh >= 1 && dh <= kMaxSplitHeadSize;
}

constexpr int64_t split_key_spans(int64_t k_len) {
    return (k_len + kSplitKeysPerBlock - 1) / kSplitKeysPerBlock;
}

constexpr int64_t split_keys_partial_floats(int64_t bh, int64_t k_len, int64_t dh) {
    return bh * split_key_spans(k_len) * (dh + 2);
}

// The kernels of a one-query attention path (AttentionPath::one_query_f16 / _f32).
enum class OneQueryKernels {
    split_keys,          // attend_split_keys (partials merged by each head's last block)
    one_block_per_head,  // attend_one_query (the old kernel)
};

constexpr OneQueryKernels one_query_kernels(int64_t bh, int64_t dh, OldKernels old) {
    return !old.attention && attend_split_keys_fits(bh, dh) ? OneQueryKernels::split_keys
                                                            : OneQueryKernels::one_block_per_head;
}

// The kernel of a linear on the GEMV path: the multi-column one needs 16-byte rows (k % 8 == 0).
enum class GemvKernel {
    columns,     // gemv_f16_columns
    per_column,  // gemv_f16 (the old kernel)
};

constexpr GemvKernel gemv_kernel(int64_t k, OldKernels old) {
    return !old.gemv && k % 8 == 0 ? GemvKernel::columns : GemvKernel::per_column;
}

// Whether the fused GEMV (fused_gemv.h) takes x [m, k]: the GEMV's rows, 16-byte rows, and x in
// shared memory within the limit.
constexpr bool fused_gemv_fits(int64_t m, int64_t k) {
    return m >= 1 && m <= kMaxGemvRows && k >= 8 && k % 8 == 0 &&
           fused_gemv_shared_bytes(m, k) <= kSharedBytesLimit;
}

// How a linear [m, k] x [n, k]^T runs.
enum class LinearPath {
    gemv,  // m <= kMaxGemvRows: one kernel (gemv_kernel) reads the weights once, epilogue in it
    gemm,  // to_half of x, a cuBLAS GEMM, then finish_linear when it has a bias or an epilogue
};

constexpr LinearPath linear_path(int64_t rows) {
    return rows <= kMaxGemvRows ? LinearPath::gemv : LinearPath::gemm;
}

// How an attention q [B, H, Q, Dh] over keys and values [B, H, K, Dh] runs.
enum class AttentionPath {
    one_query_f16,  // Q = 1 over the f16 caches: one_query_kernels
    one_query_f32,  // Q = 1 over keys and values just computed (f32): one_query_kernels
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
