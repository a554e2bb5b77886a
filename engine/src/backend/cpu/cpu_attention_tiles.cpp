// attention_tiles: keys packed once per call in panels of 16 (each panel's head-size rows
// contiguous), then per task (one head, kTaskRows query rows) a 6 x 16 register tile of scores
// per panel (12 accumulators: 6 broadcast query values times two 8-wide key vectors per step of
// the head dimension), the rows' softmax (the one every attention path uses), and a 6 x 16
// register tile of the weighted sum over blocks of value rows that stay in L1 while every row
// tile of the task reads them.
#include "cpu_attention_tiles.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "cpu_kernels.h"
#include "cpu_threads.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EARSHOT_TILES_X86 1
#define EARSHOT_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

namespace earshot::backend::cpu {

namespace {

constexpr int64_t kTileRows = 6;     // query rows of one register tile
constexpr int64_t kTileCols = 16;    // keys, or value columns, of one register tile
constexpr int64_t kTaskRows = 36;    // query rows of one task: its scores (36 x 1504 f32) fit L2
constexpr int64_t kValueBlock = 64;  // value rows per block of the weighted sum (16 KiB at Dh 64)

int64_t panels_for(int64_t k_len) { return (k_len + kTileCols - 1) / kTileCols; }

// packed [P, Dh, 16]: packed[(p * dh + d) * 16 + c] = k[(16 p + c) * dh + d], zeros past k_len.
void pack_keys(const float* k, float* packed, int64_t k_len, int64_t dh) {
    const int64_t panels = panels_for(k_len);
    for (int64_t p = 0; p < panels; ++p) {
        float* panel = packed + p * dh * kTileCols;
        for (int64_t c = 0; c < kTileCols; ++c) {
            const int64_t j = p * kTileCols + c;
            if (j >= k_len) {
                for (int64_t d = 0; d < dh; ++d) panel[d * kTileCols + c] = 0.0F;
                continue;
            }
            const float* key = k + j * dh;
            for (int64_t d = 0; d < dh; ++d) panel[d * kTileCols + c] = key[d];
        }
    }
}

#if defined(EARSHOT_TILES_X86)

// scores [rows, stride] = scale * q [rows, dh] packed^T, rows a multiple of kTileRows; columns
// past the keys (the last panel's padding) score 0.
EARSHOT_AVX2_FMA void score_tiles(const float* q, int64_t rows, const float* packed, int64_t panels,
                                  int64_t dh, float scale, float* scores, int64_t stride) {
    const __m256 scale8 = _mm256_set1_ps(scale);
    for (int64_t p = 0; p < panels; ++p) {
        const float* panel = packed + p * dh * kTileCols;
        for (int64_t r0 = 0; r0 < rows; r0 += kTileRows) {
            const float* qr = q + r0 * dh;
            __m256 acc[kTileRows][2];
#pragma GCC unroll 6
            for (int64_t i = 0; i < kTileRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
            for (int64_t d = 0; d < dh; ++d) {
                const __m256 k0 = _mm256_loadu_ps(panel + d * kTileCols);
                const __m256 k1 = _mm256_loadu_ps(panel + d * kTileCols + 8);
#pragma GCC unroll 6
                for (int64_t i = 0; i < kTileRows; ++i) {
                    const __m256 qi = _mm256_broadcast_ss(qr + i * dh + d);
                    acc[i][0] = _mm256_fmadd_ps(qi, k0, acc[i][0]);
                    acc[i][1] = _mm256_fmadd_ps(qi, k1, acc[i][1]);
                }
            }
#pragma GCC unroll 6
            for (int64_t i = 0; i < kTileRows; ++i) {
                float* out = scores + (r0 + i) * stride + p * kTileCols;
                _mm256_storeu_ps(out, _mm256_mul_ps(acc[i][0], scale8));
                _mm256_storeu_ps(out + 8, _mm256_mul_ps(acc[i][1], scale8));
            }
        }
    }
}

// y [rows, dh] = p [rows, stride] (its first k_len columns) v [k_len, dh], each output a sum over
// j in order; rows a multiple of kTileRows, dh of kTileCols.
EARSHOT_AVX2_FMA void weigh_values(const float* p, int64_t stride, int64_t rows, const float* v,
                                   int64_t k_len, int64_t dh, float* y) {
    std::fill(y, y + rows * dh, 0.0F);
    for (int64_t j0 = 0; j0 < k_len; j0 += kValueBlock) {
        const int64_t j1 = std::min(k_len, j0 + kValueBlock);
        for (int64_t c0 = 0; c0 < dh; c0 += kTileCols) {
            for (int64_t r0 = 0; r0 < rows; r0 += kTileRows) {
                __m256 acc[kTileRows][2];
#pragma GCC unroll 6
                for (int64_t i = 0; i < kTileRows; ++i) {
                    acc[i][0] = _mm256_loadu_ps(y + (r0 + i) * dh + c0);
                    acc[i][1] = _mm256_loadu_ps(y + (r0 + i) * dh + c0 + 8);
                }
                const float* pr = p + r0 * stride;
                for (int64_t j = j0; j < j1; ++j) {
                    const __m256 v0 = _mm256_loadu_ps(v + j * dh + c0);
                    const __m256 v1 = _mm256_loadu_ps(v + j * dh + c0 + 8);
#pragma GCC unroll 6
                    for (int64_t i = 0; i < kTileRows; ++i) {
                        const __m256 pi = _mm256_broadcast_ss(pr + i * stride + j);
                        acc[i][0] = _mm256_fmadd_ps(pi, v0, acc[i][0]);
                        acc[i][1] = _mm256_fmadd_ps(pi, v1, acc[i][1]);
                    }
                }
#pragma GCC unroll 6
                for (int64_t i = 0; i < kTileRows; ++i) {
                    _mm256_storeu_ps(y + (r0 + i) * dh + c0, acc[i][0]);
                    _mm256_storeu_ps(y + (r0 + i) * dh + c0 + 8, acc[i][1]);
                }
            }
        }
    }
}

bool has_avx2_fma() {
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return supported;
}

#else

// Never called: attention_tiles_supported is false without x86 AVX2 and FMA.
void score_tiles(const float*, int64_t, const float*, int64_t, int64_t, float, float*, int64_t) {}
void weigh_values(const float*, int64_t, int64_t, const float*, int64_t, int64_t, float*) {}
bool has_avx2_fma() { return false; }

#endif

}  // namespace

bool attention_tiles_supported(int64_t dh) {
    return dh > 0 && dh % kTileCols == 0 && has_avx2_fma();
}

void attention_tiles(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
                     int64_t batch, int64_t heads, int64_t q_len, int64_t k_len, int64_t dh,
                     float scale, bool kv_shared) {
    const int64_t groups = kv_shared ? heads : batch * heads;
    const int64_t panels = panels_for(k_len);
    const int64_t stride = panels * kTileCols;  // scores per row, padding included
    const int64_t group_floats = panels * dh * kTileCols;
    const std::unique_ptr<float[]> packed(new float[static_cast<size_t>(groups * group_floats)]);
    ThreadPool::current().parallel_for(groups, 1, [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
            pack_keys(k + g * k_len * dh, packed.get() + g * group_floats, k_len, dh);
        }
    });

    const int64_t blocks = (q_len + kTaskRows - 1) / kTaskRows;
    ThreadPool::current().parallel_for(batch * heads * blocks, 1, [&](int64_t begin, int64_t end) {
        thread_local std::vector<float> rows_q, scores, rows_y;  // grow once per thread
        rows_q.resize(static_cast<size_t>(kTaskRows * dh));
        scores.resize(static_cast<size_t>(kTaskRows * stride));
        rows_y.resize(static_cast<size_t>(kTaskRows * dh));
        for (int64_t task = begin; task < end; ++task) {
            const int64_t bh = task / blocks;
            const int64_t q0 = (task % blocks) * kTaskRows;
            const int64_t n = std::min(kTaskRows, q_len - q0);
            const int64_t rows = (n + kTileRows - 1) / kTileRows * kTileRows;
            const int64_t g = kv_shared ? bh % heads : bh;
            const float* first = q + (bh * q_len + q0) * dh;
            std::copy(first, first + n * dh, rows_q.begin());
            std::fill(rows_q.begin() + n * dh, rows_q.begin() + rows * dh, 0.0F);
            score_tiles(rows_q.data(), rows, packed.get() + g * group_floats, panels, dh, scale,
                        scores.data(), stride);
            for (int64_t r = 0; r < rows; ++r) {
                float* row = scores.data() + r * stride;
                if (r >= n) {  // padding rows: weigh nothing
                    std::fill(row, row + k_len, 0.0F);
                    continue;
                }
                softmax_rows(row, mask == nullptr ? nullptr : mask + (q0 + r) * k_len, 1, k_len);
            }
            weigh_values(scores.data(), stride, rows, v + g * k_len * dh, k_len, dh, rows_y.data());
            std::copy(rows_y.begin(), rows_y.begin() + n * dh, y + (bh * q_len + q0) * dh);
        }
    });
}

}  // namespace earshot::backend::cpu
