// Fused attention for many queries (the encoder's self-attention, prefill, decode): scores and
// probabilities stay in shared memory, never in device memory. Per block: 64 queries of one
// (batch, head), 4 warps of 16 query rows; keys and values stream through in tiles of 32, and
// each warp keeps a running max, sum and output per row (online softmax), updated per tile. The
// products use the tensor cores (wmma 16x16x16, f16 operands, f32 accumulation); the softmax is
// f32, its probabilities rounded to f16 for the second product, as the cuBLAS path rounds them.
#include <cuda_fp16.h>
#include <mma.h>

#include <stdexcept>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

namespace wmma = nvcuda::wmma;

// The tiles as cuda_launch_rules.h gives them (its flash_shared_bytes is this layout's total).
constexpr int kQueryTile = static_cast<int>(kFlashQueryTile);  // queries per block
constexpr int kKeyTile = static_cast<int>(kFlashKeyTile);      // keys per step
constexpr int kWarps = static_cast<int>(kFlashWarps);          // 16 query rows each
constexpr int kFlashThreads = kWarps * 32;
constexpr int kRowsPerWarp = static_cast<int>(kFlashRowsPerWarp);

// Shared memory, in bytes, for head size dh; every part starts 32-byte aligned (wmma).
struct FlashLayout {
    int64_t q, k, v, s, p, o, m, l, total;
    __host__ __device__ explicit FlashLayout(int64_t dh) {
        q = 0;                                         // [64, Dh] f16
        k = q + kQueryTile * dh * 2;                   // [32, Dh] f16
        v = k + kKeyTile * dh * 2;                     // [32, Dh] f16
        s = v + kKeyTile * dh * 2;                     // per warp [16, 32] f32
        p = s + kWarps * kRowsPerWarp * kKeyTile * 4;  // per warp [16, 32] f16
        o = p + kWarps * kRowsPerWarp * kKeyTile * 2;  // per warp [16, Dh] f32
        m = o + kWarps * kRowsPerWarp * dh * 4;        // per warp [16] f32
        l = m + kWarps * kRowsPerWarp * 4;             // per warp [16] f32
        total = l + kWarps * kRowsPerWarp * 4;
    }
};

// q [BH, Q, Dh], k and v [BH, K, Dh] f16, mask [Q, K] (1 = visible) or null -> y [BH, Q, Dh] f32.
// One block per (bh, query tile), blocks numbered bh * tiles + tile.
__global__ void flash_attention_kernel(const __half* q, const __half* k, const __half* v,
                                       const uint8_t* mask, float* y, int64_t q_len, int64_t k_len,
                                       int64_t dh, float scale, int64_t kv_rows) {
    EARSHOT_DYNAMIC_SHARED(unsigned char, shared);
    const FlashLayout layout(dh);
    auto* qs = reinterpret_cast<__half*>(shared + layout.q);
    auto* ks = reinterpret_cast<__half*>(shared + layout.k);
    auto* vs = reinterpret_cast<__half*>(shared + layout.v);
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    float* sw = reinterpret_cast<float*>(shared + layout.s) + warp * kRowsPerWarp * kKeyTile;
    __half* pw = reinterpret_cast<__half*>(shared + layout.p) + warp * kRowsPerWarp * kKeyTile;
    float* ow = reinterpret_cast<float*>(shared + layout.o) + warp * kRowsPerWarp * dh;
    float* mw = reinterpret_cast<float*>(shared + layout.m) + warp * kRowsPerWarp;
    float* lw = reinterpret_cast<float*>(shared + layout.l) + warp * kRowsPerWarp;

    const int64_t tiles = (q_len + kQueryTile - 1) / kQueryTile;
    const int64_t bh = blockIdx.x / tiles;
    const int64_t first_query = (blockIdx.x % tiles) * kQueryTile;
    const __half* qh = q + bh * q_len * dh;
    const __half* kh = k + bh % kv_rows * k_len * dh;  // kv_rows: see kernels.h
    const __half* vh = v + bh % kv_rows * k_len * dh;
    const __half zero = __float2half_rn(0.0F);

    for (int64_t i = threadIdx.x; i < kQueryTile * dh; i += blockDim.x) {
        const int64_t query = first_query + i / dh;
        qs[i] = query < q_len ? qh[query * dh + i % dh] : zero;
    }
    for (int64_t i = lane; i < kRowsPerWarp * dh; i += 32) ow[i] = 0.0F;
    if (lane < kRowsPerWarp) {
        mw[lane] = -INFINITY;
        lw[lane] = 0.0F;
    }
    __syncthreads();

    const int row = lane % kRowsPerWarp;          // each row is shared by two lanes
    const int half_of_row = lane / kRowsPerWarp;  // which 16 of the tile's 32 keys
    const int64_t query = first_query + warp * kRowsPerWarp + row;
    for (int64_t first_key = 0; first_key < k_len; first_key += kKeyTile) {
        for (int64_t i = threadIdx.x; i < kKeyTile * dh; i += blockDim.x) {
            const int64_t key = first_key + i / dh;
            ks[i] = key < k_len ? kh[key * dh + i % dh] : zero;
            vs[i] = key < k_len ? vh[key * dh + i % dh] : zero;
        }
        __syncthreads();

        // S [16, 32] = Q_warp [16, Dh] K_tile^T [Dh, 32]
        for (int n = 0; n < kKeyTile / 16; ++n) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::fill_fragment(acc, 0.0F);
            for (int64_t d = 0; d < dh; d += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
                wmma::load_matrix_sync(a, qs + warp * kRowsPerWarp * dh + d,
                                       static_cast<unsigned>(dh));
                wmma::load_matrix_sync(b, ks + n * 16 * dh + d, static_cast<unsigned>(dh));
                wmma::mma_sync(acc, a, b, acc);
            }
            wmma::store_matrix_sync(sw + n * 16, acc, kKeyTile, wmma::mem_row_major);
        }
        __syncthreads();

        // Online softmax of this row's 32 scores, two lanes a row, 16 keys each.
        float local_max = -INFINITY;
        for (int c = half_of_row * 16; c < half_of_row * 16 + 16; ++c) {
            const int64_t key = first_key + c;
            const bool visible = key < k_len && (mask == nullptr || query >= q_len ||
                                                 mask[query * k_len + key] != 0);
            const float score = visible ? sw[row * kKeyTile + c] * scale : -INFINITY;
            sw[row * kKeyTile + c] = score;
            local_max = fmaxf(local_max, score);
        }
        const float tile_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffU, local_max, 16));
        const float old_max = mw[row];
        const float new_max = fmaxf(old_max, tile_max);
        float local_sum = 0.0F;
        for (int c = half_of_row * 16; c < half_of_row * 16 + 16; ++c) {
            const float score = sw[row * kKeyTile + c];
            const float p = score == -INFINITY ? 0.0F : expf(score - new_max);
            pw[row * kKeyTile + c] = __float2half_rn(p);
            local_sum += p;
        }
        const float tile_sum = local_sum + __shfl_xor_sync(0xffffffffU, local_sum, 16);
        const float rescale = old_max == -INFINITY ? 0.0F : expf(old_max - new_max);
        for (int64_t d = half_of_row * (dh / 2); d < (half_of_row + 1) * (dh / 2); ++d) {
            ow[row * dh + d] *= rescale;
        }
        __syncthreads();  // every lane has read the old max and sum
        if (half_of_row == 0) {
            mw[row] = new_max;
            lw[row] = lw[row] * rescale + tile_sum;
        }
        __syncthreads();

        // O_warp [16, Dh] += P [16, 32] V_tile [32, Dh]
        for (int64_t n = 0; n < dh; n += 16) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::load_matrix_sync(acc, ow + n, static_cast<unsigned>(dh), wmma::mem_row_major);
            for (int c = 0; c < kKeyTile; c += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
                wmma::load_matrix_sync(a, pw + c, kKeyTile);
                wmma::load_matrix_sync(b, vs + c * dh + n, static_cast<unsigned>(dh));
                wmma::mma_sync(acc, a, b, acc);
            }
            wmma::store_matrix_sync(ow + n, acc, static_cast<unsigned>(dh), wmma::mem_row_major);
        }
        __syncthreads();  // the tiles are read before the next ones overwrite them
    }

    if (query < q_len) {
        const float total = lw[row];
        float* out = y + (bh * q_len + query) * dh;
        for (int64_t d = half_of_row * (dh / 2); d < (half_of_row + 1) * (dh / 2); ++d) {
            out[d] = total > 0.0F ? ow[row * dh + d] / total : 0.0F;  // fully masked: zeros
        }
    }
}

}  // namespace

bool flash_attention_fits(int64_t dh) {
    // The rule the plan listing uses too; the layout here must be the one it counts.
    const bool fits = cuda::flash_attention_fits(dh);
    if (fits && FlashLayout(dh).total != flash_shared_bytes(dh)) {
        throw std::logic_error(
            "flash attention: its shared-memory layout differs from "
            "flash_shared_bytes (cuda_launch_rules.h)");
    }
    return fits;
}

void flash_attention(const uint16_t* q, const uint16_t* k, const uint16_t* v, const uint8_t* mask,
                     float* y, int64_t bh, int64_t q_len, int64_t k_len, int64_t dh, float scale,
                     cudaStream_t stream, int64_t kv_rows) {
    const int64_t tiles = (q_len + kQueryTile - 1) / kQueryTile;
    if (bh == 0 || tiles == 0) return;
    EARSHOT_LAUNCH(flash_attention_kernel, static_cast<unsigned>(bh * tiles), kFlashThreads,
                   static_cast<size_t>(FlashLayout(dh).total), stream)
    (reinterpret_cast<const __half*>(q), reinterpret_cast<const __half*>(k),
     reinterpret_cast<const __half*>(v), mask, y, q_len, k_len, dh, scale,
     kv_rows > 0 ? kv_rows : bh);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
