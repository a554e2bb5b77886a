// The fused GEMV of a decoder step (issue 30, "fewer kernels"): one launch that reads x [m, k]
// once into shared memory, applies the LayerNorm that feeds it (optional), and computes up to
// three linears of that x (q, k and v of a self-attention), each with its bias and epilogue,
// writing f32 outputs or, for keys and values, f16 straight into a decoder cache at `pos`. Plain
// C++: the module launches it (module/kernels_gemv_fused.cu), the per-kernel tests fill it in
// through the KernelTable, and the plan listing sizes it.
#pragma once

#include <cstdint>

namespace earshot::backend::cuda {

inline constexpr int kMaxFusedLinears = 3;

// One linear's columns: y = epilogue(x w^T + bias), w [n, k] f16 (or blocks, FusedGemv).
struct FusedLinear {
    const uint16_t* w = nullptr;  // [n, k] f16 bits, or [n, k / 32] blocks of block_type
    const float* bias = nullptr;  // [n], or null
    int64_t n = 0;
    bool gelu = false;                // erf GELU after the bias
    const float* residual = nullptr;  // [m, n] added last, or null
    // Where the columns go: y [m, n] f32, or (y null) the cache [m, heads, positions, dh] f16
    // at position *pos (device memory), column c to head c / dh, element c % dh; heads x dh = n.
    float* y = nullptr;
    uint16_t* cache = nullptr;
    int64_t heads = 0;
    int64_t positions = 0;
    int64_t dh = 0;
    const int32_t* pos = nullptr;
};

struct FusedGemv {
    const float* x = nullptr;  // [m, k] f32, 1 <= m <= kMaxGemvRows, k % 8 == 0
    int64_t m = 0;
    int64_t k = 0;
    // LayerNorm of each row of x before the products (weight, bias [k] f32), when not null.
    const float* norm_weight = nullptr;
    const float* norm_bias = nullptr;
    float norm_eps = 0.0F;
    FusedLinear linears[kMaxFusedLinears];
    int linear_count = 0;
    // 0: every w is f16. Else the ggml_type id (q8_0 8, q5_0 6, q4_0 2) whose blocks every w
    // holds (k % 32 == 0): the block GEMVs' arithmetic, 8-bit activations per block.
    int32_t block_type = 0;
};

// Shared memory the fused GEMV takes: x [m, k] f32 (normalised in place), and 32 floats of the
// LayerNorm's block reductions.
constexpr int64_t fused_gemv_shared_bytes(int64_t m, int64_t k) { return m * k * 4 + 32 * 4; }

}  // namespace earshot::backend::cuda
