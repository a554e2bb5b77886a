// The encoder's flash attention (issue 30), FlashAttention-2 style: per block 64 queries of one
// (batch, head) in 4 warps of 16 rows; the heads are read in place from the [T, 3 D] f16 output of
// the q, k, v GEMM (row stride 3 D, no split copies) and the merged f16 [T, D] written (no merge
// copy). Q and the key and value tiles of 32 arrive by 16-byte asynchronous copies, the next
// tile's in flight while this one is used (two buffers); each warp keeps its output rows as wmma
// accumulators in registers and its running max and sum in the lanes that own the rows, so only
// the scores and probabilities of one tile pass through shared memory. Rows are padded by 16
// bytes against bank conflicts. Layout and limits: flash_strided_shared_bytes (launch rules).
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include <stdexcept>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

namespace wmma = nvcuda::wmma;

constexpr int kQueryTile = static_cast<int>(kFlashQueryTile);
constexpr int kKeyTile = static_cast<int>(kFlashKeyTile);
constexpr int kWarps = static_cast<int>(kFlashWarps);
constexpr int kRows = static_cast<int>(kFlashRowsPerWarp);
constexpr int kThreadsPerBlock = kWarps * 32;
constexpr int kPad = static_cast<int>(kStridedFlashRowPad);
constexpr int kScoreStride = kKeyTile + 4;  // f32 per score row
constexpr int kProbStride = kKeyTile + 8;   // f16 per probability row

using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// Byte offsets into shared memory; every part 32-byte aligned (wmma).
struct StridedLayout {
    int64_t row, q, k, v, s, p, r, total;
    __host__ __device__ explicit StridedLayout(int64_t dh) {
        row = dh + kPad;                            // halves per padded row
        q = 0;                                      // [64, row] f16
        k = q + kQueryTile * row * 2;               // [2][32, row] f16
        v = k + 2 * kKeyTile * row * 2;             // [2][32, row] f16
        s = v + 2 * kKeyTile * row * 2;             // per warp [16, 36] f32
        p = s + kWarps * kRows * kScoreStride * 4;  // per warp [16, 40] f16
        r = p + kWarps * kRows * kProbStride * 2;   // per warp [16] f32
        total = r + kWarps * kRows * 4;
    }
};

// Rows first .. first + rows of one third of qkv (column `col`, Dh wide) into `dst` (padded
// rows) by 16-byte asynchronous copies; rows at or past t_len are zeros.
template <int Dh>
__device__ void copy_rows(__half* dst, const __half* src, int64_t width, int64_t first, int rows,
                          int64_t t_len, int64_t row) {
    constexpr int kChunks = Dh / 8;
    for (int i = static_cast<int>(threadIdx.x); i < rows * kChunks; i += kThreadsPerBlock) {
        const int r = i / kChunks;
        const int c = i % kChunks;
        __half* to = dst + r * row + c * 8;
        if (first + r < t_len) {
            __pipeline_memcpy_async(to, src + (first + r) * width + c * 8, 16);
        } else {
            for (int e = 0; e < 8; ++e) to[e] = __float2half_rn(0.0F);
        }
    }
}

// qkv [B, T, 3 D] f16 -> y [B, T, D] f16, one block per (b H + h, query tile).
template <int Dh>
__global__ void flash_strided_kernel(const __half* qkv, __half* y, int64_t t_len, int64_t heads,
                                     float scale) {
    EARSHOT_DYNAMIC_SHARED(unsigned char, shared);
    const StridedLayout layout(Dh);
    const int64_t row = layout.row;
    auto* qs = reinterpret_cast<__half*>(shared + layout.q);
    auto* k_tiles = reinterpret_cast<__half*>(shared + layout.k);
    auto* v_tiles = reinterpret_cast<__half*>(shared + layout.v);
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    float* sw = reinterpret_cast<float*>(shared + layout.s) + warp * kRows * kScoreStride;
    __half* pw = reinterpret_cast<__half*>(shared + layout.p) + warp * kRows * kProbStride;
    float* rw = reinterpret_cast<float*>(shared + layout.r) + warp * kRows;

    const int64_t d = heads * Dh;
    const int64_t width = 3 * d;
    const int64_t query_tiles = (t_len + kQueryTile - 1) / kQueryTile;
    const int64_t bh = blockIdx.x / query_tiles;
    const int64_t first_query = (blockIdx.x % query_tiles) * kQueryTile;
    const __half* base = qkv + (bh / heads) * t_len * width + (bh % heads) * Dh;
    const int64_t key_tiles = (t_len + kKeyTile - 1) / kKeyTile;

    copy_rows<Dh>(qs, base, width, first_query, kQueryTile, t_len, row);
    copy_rows<Dh>(k_tiles, base + d, width, 0, kKeyTile, t_len, row);
    copy_rows<Dh>(v_tiles, base + 2 * d, width, 0, kKeyTile, t_len, row);
    __pipeline_commit();

    // Which row each element of an accumulator fragment holds (the fragment layout is opaque):
    // a [16, 16] matrix of row numbers loaded as one.
    for (int i = lane; i < 16 * 16; i += 32) sw[(i / 16) * kScoreStride + i % 16] = i / 16;
    __syncwarp();
    Accumulator rows;
    wmma::load_matrix_sync(rows, sw, kScoreStride, wmma::mem_row_major);
    Accumulator out[Dh / 16];
#pragma unroll
    for (int n = 0; n < Dh / 16; ++n) wmma::fill_fragment(out[n], 0.0F);

    const int my_row = lane % kRows;   // two lanes a row,
    const int my_half = lane / kRows;  // 16 of the tile's 32 keys each
    float row_max = -INFINITY;         // this row's running max and sum (both lanes alike)
    float row_sum = 0.0F;
    for (int64_t tile = 0; tile < key_tiles; ++tile) {
        const int64_t buffer = tile & 1;
        if (tile + 1 < key_tiles) {  // the next tile into the other buffer, then wait for this
            const int64_t next = (buffer ^ 1) * kKeyTile * row;
            copy_rows<Dh>(k_tiles + next, base + d, width, (tile + 1) * kKeyTile, kKeyTile, t_len,
                          row);
            copy_rows<Dh>(v_tiles + next, base + 2 * d, width, (tile + 1) * kKeyTile, kKeyTile,
                          t_len, row);
            __pipeline_commit();
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        const __half* ks = k_tiles + buffer * kKeyTile * row;
        const __half* vs = v_tiles + buffer * kKeyTile * row;

        // S [16, 32] = Q_warp [16, Dh] K_tile^T
#pragma unroll
        for (int n = 0; n < kKeyTile / 16; ++n) {
            Accumulator acc;
            wmma::fill_fragment(acc, 0.0F);
#pragma unroll
            for (int c = 0; c < Dh; c += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
                wmma::load_matrix_sync(a, qs + warp * kRows * row + c, static_cast<unsigned>(row));
                wmma::load_matrix_sync(b, ks + n * 16 * row + c, static_cast<unsigned>(row));
                wmma::mma_sync(acc, a, b, acc);
            }
            wmma::store_matrix_sync(sw + n * 16, acc, kScoreStride, wmma::mem_row_major);
        }
        __syncwarp();

        // Online softmax of the row's 32 scores, 16 per lane.
        const int64_t first_key = tile * kKeyTile;
        float local_max = -INFINITY;
        for (int c = my_half * 16; c < my_half * 16 + 16; ++c) {
            const float score =
                first_key + c < t_len ? sw[my_row * kScoreStride + c] * scale : -INFINITY;
            local_max = fmaxf(local_max, score);
        }
        const float new_max =
            fmaxf(row_max, fmaxf(local_max, __shfl_xor_sync(0xffffffffU, local_max, 16)));
        float local_sum = 0.0F;
        for (int c = my_half * 16; c < my_half * 16 + 16; ++c) {
            const float p = first_key + c < t_len
                                ? expf(sw[my_row * kScoreStride + c] * scale - new_max)
                                : 0.0F;
            pw[my_row * kProbStride + c] = __float2half_rn(p);
            local_sum += p;
        }
        const float rescale = row_max == -INFINITY ? 0.0F : expf(row_max - new_max);
        row_sum = row_sum * rescale + local_sum + __shfl_xor_sync(0xffffffffU, local_sum, 16);
        row_max = new_max;
        if (my_half == 0) rw[my_row] = rescale;
        __syncwarp();

        // O_warp [16, Dh] = rescale O_warp + P [16, 32] V_tile [32, Dh], O in registers.
#pragma unroll
        for (int n = 0; n < Dh / 16; ++n) {
            for (int e = 0; e < out[n].num_elements; ++e)
                out[n].x[e] *= rw[static_cast<int>(rows.x[e])];
#pragma unroll
            for (int c = 0; c < kKeyTile; c += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
                wmma::load_matrix_sync(a, pw + c, kProbStride);
                wmma::load_matrix_sync(b, vs + c * row + n * 16, static_cast<unsigned>(row));
                wmma::mma_sync(out[n], a, b, out[n]);
            }
        }
        __syncthreads();  // this tile's buffers are read before the next copy overwrites them
    }

    // y = O / sum, rounded to f16, 16-byte stores of 8 halves into the merged rows.
    if (my_half == 0) rw[my_row] = row_sum > 0.0F ? 1.0F / row_sum : 0.0F;
    __syncwarp();
    const int64_t query = first_query + warp * kRows + my_row;
    __half* y_row = y + ((bh / heads) * t_len + query) * d + (bh % heads) * Dh;
#pragma unroll
    for (int n = 0; n < Dh / 16; ++n) {
        for (int e = 0; e < out[n].num_elements; ++e)
            out[n].x[e] *= rw[static_cast<int>(rows.x[e])];
        wmma::store_matrix_sync(sw, out[n], kScoreStride, wmma::mem_row_major);
        __syncwarp();
        if (query < t_len) {
            unsigned words[4];
            for (int w = 0; w < 4; ++w) {
                const float* pair = sw + my_row * kScoreStride + my_half * 8 + 2 * w;
                words[w] = static_cast<unsigned>(__half_as_ushort(__float2half_rn(pair[0]))) |
                           static_cast<unsigned>(__half_as_ushort(__float2half_rn(pair[1]))) << 16;
            }
            *reinterpret_cast<uint4*>(y_row + n * 16 + my_half * 8) =
                uint4{words[0], words[1], words[2], words[3]};
        }
        __syncwarp();
    }
}

template <int Dh>
void launch_strided(const uint16_t* qkv, uint16_t* y, int64_t batch, int64_t t_len, int64_t heads,
                    float scale, cudaStream_t stream) {
    const int64_t tiles = (t_len + kQueryTile - 1) / kQueryTile;
    EARSHOT_LAUNCH(flash_strided_kernel<Dh>, static_cast<unsigned>(batch * heads * tiles),
                   kThreadsPerBlock, static_cast<size_t>(StridedLayout(Dh).total), stream)
    (reinterpret_cast<const __half*>(qkv), reinterpret_cast<__half*>(y), t_len, heads, scale);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace

bool flash_attention_strided(const uint16_t* qkv, uint16_t* y, int64_t batch, int64_t t_len,
                             int64_t heads, int64_t dh, float scale, cudaStream_t stream) {
    if (!cuda::flash_strided_fits(dh, heads * dh) || reinterpret_cast<uintptr_t>(qkv) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(y) % 16 != 0) {
        return false;
    }
    if (StridedLayout(dh).total != flash_strided_shared_bytes(dh)) {
        throw std::logic_error(
            "flash_attention_strided: its shared-memory layout differs from "
            "flash_strided_shared_bytes (cuda_launch_rules.h)");
    }
    if (batch * heads * t_len == 0) return true;
    switch (dh) {
        case 16:
            launch_strided<16>(qkv, y, batch, t_len, heads, scale, stream);
            break;
        case 32:
            launch_strided<32>(qkv, y, batch, t_len, heads, scale, stream);
            break;
        case 48:
            launch_strided<48>(qkv, y, batch, t_len, heads, scale, stream);
            break;
        default:
            launch_strided<64>(qkv, y, batch, t_len, heads, scale, stream);
            break;
    }
    return true;
}

}  // namespace earshot::backend::cuda::kernels
