// CPU kernels: OpenBLAS for the matrix products, simple loops (written so GCC vectorizes them)
// for everything else; the elementwise and row loops are compiled for AVX2 and for baseline x86-64
// (cpu_simd.h).
#include "cpu_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "cpu_attention_one_query.h"
#include "cpu_attention_tiles.h"
#include "cpu_gemv_f16.h"
#include "cpu_simd.h"
#include "cpu_threads.h"

namespace earshot::backend::cpu {

namespace {

// erf with absolute error below 1.5e-7 (Abramowitz and Stegun 7.1.26), accurate to f32
// resolution where GELU's output matters.
[[gnu::always_inline]] inline float erf_approx(float x) {
    const float a = std::fabs(x);
    const float t = 1.0F / (1.0F + 0.3275911F * a);
    const float poly =
        t * (0.254829592F +
             t * (-0.284496736F + t * (1.421413741F + t * (-1.453152027F + t * 1.061405429F))));
    return std::copysign(1.0F - poly * exp_approx(-a * a), x);
}

// Rows of d values per pool task for a row-wise op: at least 16 Ki values, so that small work (a
// decoder step's one row) runs on its caller (the pool does not split fewer than two grains).
int64_t row_grain(int64_t d) {
    return std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(d, 1));
}

}  // namespace

void linear(const float* x, const float* w, const float* bias, float* y, int64_t m, int64_t k,
            int64_t n) {
    const auto M = static_cast<blasint>(m);
    const auto N = static_cast<blasint>(n);
    const auto K = static_cast<blasint>(k);
    if (m <= kHalfGemvRows) {
        // A decoder step (one row, or a beam's few): w streamed once with prefetching, no GEMM
        // packing (OpenBLAS's sgemv read w at half the rate on the machines measured).
        gemv_f32(x, w, bias, y, m, k, n);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0F, x, K, w, K, 0.0F, y, N);
    if (bias == nullptr) return;
    for (int64_t row = 0; row < m; ++row) {
        float* out = y + row * n;
        for (int64_t j = 0; j < n; ++j) out[j] += bias[j];
    }
}

namespace {

// im2col rows [begin, end) of cols [Lout, Cin * K]: cols[t, c * K + j] = x[t * stride + j -
// padding, c], zero past either end of x [L, Cin].
void im2col_rows(const float* x, float* cols, int64_t begin, int64_t end, int64_t length,
                 int64_t in_channels, int64_t kernel, int64_t stride, int64_t padding) {
    const int64_t row = in_channels * kernel;
    for (int64_t t = begin; t < end; ++t) {
        float* col = cols + t * row;
        for (int64_t j = 0; j < kernel; ++j) {
            const int64_t src = t * stride + j - padding;
            if (src < 0 || src >= length) {
                for (int64_t c = 0; c < in_channels; ++c) col[c * kernel + j] = 0.0F;
                continue;
            }
            const float* xs = x + src * in_channels;
            for (int64_t c = 0; c < in_channels; ++c) col[c * kernel + j] = xs[c];
        }
    }
}

}  // namespace

void conv1d(const float* x, const float* w, const float* b, float* y, int64_t batch, int64_t length,
            int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t stride,
            int64_t padding, std::vector<float>& scratch) {
    const int64_t out_length = (length + 2 * padding - kernel) / stride + 1;
    const int64_t row = in_channels * kernel;  // w [Cout, Cin, K] is [Cout, Cin * K]
    scratch.resize(static_cast<size_t>(out_length * row));
    for (int64_t bi = 0; bi < batch; ++bi) {
        const float* xb = x + bi * length * in_channels;
        // Rows of cols on the pool (an encoder's conv2 gathers 1500 x 1152 values for tiny).
        ThreadPool::current().parallel_for(out_length, row_grain(row),
                                           [&](int64_t begin, int64_t end) {
                                               im2col_rows(xb, scratch.data(), begin, end, length,
                                                           in_channels, kernel, stride, padding);
                                           });
        linear(scratch.data(), w, b, y + bi * out_length * out_channels, out_length, row,
               out_channels);
    }
}

namespace {

EARSHOT_VECTOR_CLONES void gelu_span(const float* x, float* y, int64_t n) {
    constexpr float kInvSqrt2 = 0.70710678118654752F;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = 0.5F * x[i] * (1.0F + erf_approx(x[i] * kInvSqrt2));
}

}  // namespace

void gelu_erf(const float* x, float* y, int64_t n) {
    ThreadPool::current().parallel_for(n, 1 << 14, [&](int64_t begin, int64_t end) {
        gelu_span(x + begin, y + begin, end - begin);
    });
}

EARSHOT_VECTOR_CLONES void add(const float* a, const float* b, float* y, int64_t n, int64_t nb) {
    for (int64_t start = 0; start < n; start += nb) {
        const float* as = a + start;
        float* ys = y + start;
        for (int64_t j = 0; j < nb; ++j) ys[j] = as[j] + b[j];
    }
}

namespace {

// Rows of width d, one after another; the statistics are double sums, vectorized (their order is
// fixed by the build and the machine's clone, not by the number of threads).
EARSHOT_VECTOR_CLONES void layer_norm_rows(const float* x, const float* w, const float* b, float* y,
                                           int64_t rows, int64_t d, double eps) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        double sum = 0.0;
#pragma omp simd reduction(+ : sum)
        for (int64_t j = 0; j < d; ++j) sum += static_cast<double>(xr[j]);
        const double mean = sum / static_cast<double>(d);
        double squares = 0.0;
#pragma omp simd reduction(+ : squares)
        for (int64_t j = 0; j < d; ++j) {
            const double c = static_cast<double>(xr[j]) - mean;
            squares += c * c;
        }
        const auto inv =
            static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(d) + eps));
        const auto mean_f = static_cast<float>(mean);
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) yr[j] = (xr[j] - mean_f) * inv * w[j] + b[j];
    }
}

EARSHOT_VECTOR_CLONES void rms_norm_rows(const float* x, const float* w, float* y, int64_t rows,
                                         int64_t d, double eps) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        double squares = 0.0;
#pragma omp simd reduction(+ : squares)
        for (int64_t j = 0; j < d; ++j)
            squares += static_cast<double>(xr[j]) * static_cast<double>(xr[j]);
        const auto inv =
            static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(d) + eps));
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) yr[j] = xr[j] * inv * w[j];
    }
}

}  // namespace

void layer_norm(const float* x, const float* w, const float* b, float* y, int64_t rows, int64_t d,
                double eps) {
    ThreadPool::current().parallel_for(rows, row_grain(d), [&](int64_t begin, int64_t end) {
        layer_norm_rows(x + begin * d, w, b, y + begin * d, end - begin, d, eps);
    });
}

void rms_norm(const float* x, const float* w, float* y, int64_t rows, int64_t d, double eps) {
    ThreadPool::current().parallel_for(rows, row_grain(d), [&](int64_t begin, int64_t end) {
        rms_norm_rows(x + begin * d, w, y + begin * d, end - begin, d, eps);
    });
}

void permute(const float* x, float* y, std::span<const int64_t> shape,
             std::span<const int64_t> axes) {
    const size_t rank = shape.size();
    if (rank > 6) throw std::invalid_argument("permute supports rank <= 6");
    int64_t in_strides[6] = {};
    int64_t stride = 1;
    for (size_t i = rank; i-- > 0;) {
        in_strides[i] = stride;
        stride *= shape[i];
    }
    const int64_t total = stride;
    int64_t out_shape[6] = {};
    int64_t src_strides[6] = {};  // input stride of each output axis
    for (size_t i = 0; i < rank; ++i) {
        out_shape[i] = shape[static_cast<size_t>(axes[i])];
        src_strides[i] = in_strides[static_cast<size_t>(axes[i])];
    }
    int64_t index[6] = {};
    int64_t src = 0;
    for (int64_t out = 0; out < total; ++out) {
        y[out] = x[src];
        for (size_t i = rank; i-- > 0;) {  // odometer over the output index
            ++index[i];
            src += src_strides[i];
            if (index[i] < out_shape[i]) break;
            src -= src_strides[i] * out_shape[i];
            index[i] = 0;
        }
    }
}

namespace {

// Copies from [B, N, H * Dh] (packed) to [B, H, N, Dh] (by head) when kSplit, else back. Each
// (b, h) slice by head [N, Dh] is contiguous; slices of at least 16 Ki values per task (an
// encoder's heads go to the pool, a decoder step's few values stay on the caller).
template <bool kSplit>
void copy_heads(const float* from, float* to, int64_t batch, int64_t n, int64_t heads, int64_t dh) {
    ThreadPool::current().parallel_for(
        batch * heads, row_grain(n * dh), [&](int64_t begin, int64_t end) {
            for (int64_t bh = begin; bh < end; ++bh) {
                const int64_t b = bh / heads;
                const int64_t h = bh % heads;
                for (int64_t t = 0; t < n; ++t) {
                    const int64_t packed = ((b * n + t) * heads + h) * dh;
                    const int64_t by_head = (bh * n + t) * dh;
                    const float* src = from + (kSplit ? packed : by_head);
                    std::copy(src, src + dh, to + (kSplit ? by_head : packed));
                }
            }
        });
}

}  // namespace

void split_heads(const float* x, float* y, int64_t batch, int64_t n, int64_t heads, int64_t dh) {
    copy_heads<true>(x, y, batch, n, heads, dh);
}

void merge_heads(const float* x, float* y, int64_t batch, int64_t heads, int64_t n, int64_t dh) {
    copy_heads<false>(x, y, batch, n, heads, dh);
}

namespace {

// One row of scores in place -> e^(score - max), exactly zero where masked (mask: 1 = visible, or
// null); returns the max (-inf, with the row all zeros, when nothing is visible) and the sum.
[[gnu::always_inline]] inline SoftmaxPartial exp_from_max(float* row, const uint8_t* visible,
                                                          int64_t cols) {
    if (visible != nullptr) {
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c) row[c] = visible[c] != 0 ? row[c] : -INFINITY;
    }
    float max = -INFINITY;
#pragma omp simd reduction(max : max)
    for (int64_t c = 0; c < cols; ++c) max = row[c] > max ? row[c] : max;
    if (max == -INFINITY) {
        for (int64_t c = 0; c < cols; ++c) row[c] = 0.0F;
        return {max, 0.0F};
    }
    float sum = 0.0F;
#pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < cols; ++c) {
        const float e = exp_approx(row[c] - max);
        row[c] = row[c] > -INFINITY ? e : 0.0F;  // masked keys get exactly zero weight
        sum += row[c];
    }
    return {max, sum};
}

}  // namespace

EARSHOT_VECTOR_CLONES void softmax_rows(float* scores, const uint8_t* mask, int64_t rows,
                                        int64_t cols) {
    for (int64_t r = 0; r < rows; ++r) {
        float* row = scores + r * cols;
        const SoftmaxPartial partial =
            exp_from_max(row, mask == nullptr ? nullptr : mask + r * cols, cols);
        if (partial.max == -INFINITY) continue;
        const float inv = 1.0F / partial.sum;
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c) row[c] *= inv;
    }
}

EARSHOT_VECTOR_CLONES SoftmaxPartial softmax_partial(float* scores, const uint8_t* mask,
                                                     int64_t cols) {
    return exp_from_max(scores, mask, cols);
}

namespace {

// q_len query rows of one head: scores [Q, K] = scale * q k^T by sgemm, the rows' softmax on the
// pool (GEMMs use OpenBLAS's own threads), y [Q, Dh] = p v by sgemm.
void attend_many(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
                 float* scores, int64_t q_len, int64_t k_len, int64_t dh, float scale) {
    const auto Q = static_cast<blasint>(q_len);
    const auto K = static_cast<blasint>(k_len);
    const auto D = static_cast<blasint>(dh);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Q, K, D, scale, q, D, k, D, 0.0F, scores,
                K);
    ThreadPool::current().parallel_for(q_len, 16, [&](int64_t begin, int64_t end) {
        softmax_rows(scores + begin * k_len, mask == nullptr ? nullptr : mask + begin * k_len,
                     end - begin, k_len);
    });
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Q, D, K, 1.0F, scores, K, v, D, 0.0F, y,
                D);
}

// Many queries per head (q_len > 1): register tiles on the pool where they serve, else
// attend_many one head after another.
void attend_heads(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
                  int64_t batch, int64_t heads, int64_t q_len, int64_t k_len, int64_t dh,
                  float scale, KvRows kv_rows) {
    if (attention_tiles_supported(dh)) {
        attention_tiles(q, k, v, mask, y, batch, heads, q_len, k_len, dh, scale,
                        kv_rows == KvRows::shared);
        return;
    }
    std::vector<float> scores(static_cast<size_t>(q_len * k_len));
    for (int64_t bh = 0; bh < batch * heads; ++bh) {
        const int64_t kv = (kv_rows == KvRows::shared ? bh % heads : bh) * k_len * dh;
        attend_many(q + bh * q_len * dh, k + kv, v + kv, mask, y + bh * q_len * dh, scores.data(),
                    q_len, k_len, dh, scale);
    }
}

}  // namespace

void attention_weights(const float* q, const float* k, float* p, int64_t q_len, int64_t k_len,
                       int64_t dh, float scale) {
    // p [Q, K] = scale * q [Q, Dh] k^T, then the rows' softmax, as in attention below.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(q_len),
                static_cast<blasint>(k_len), static_cast<blasint>(dh), scale, q,
                static_cast<blasint>(dh), k, static_cast<blasint>(dh), 0.0F, p,
                static_cast<blasint>(k_len));
    softmax_rows(p, nullptr, q_len, k_len);
}

void attention(const float* q, const float* k, const float* v, const uint8_t* mask, float* y,
               int64_t batch, int64_t heads, int64_t q_len, int64_t k_len, int64_t dh, float scale,
               KvRows kv_rows) {
    if (q_len == 1) {
        attention_one_query(q, k, v, mask, y, batch, heads, k_len, dh, scale,
                            kv_rows == KvRows::shared);
        return;
    }
    attend_heads(q, k, v, mask, y, batch, heads, q_len, k_len, dh, scale, kv_rows);
}

void attention_f16kv(const float* q, const uint16_t* k, const uint16_t* v, const uint8_t* mask,
                     float* y, int64_t batch, int64_t heads, int64_t q_len, int64_t k_len,
                     int64_t dh, float scale, KvRows kv_rows) {
    if (q_len == 1) {
        attention_one_query_f16(q, k, v, mask, y, batch, heads, k_len, dh, scale,
                                kv_rows == KvRows::shared);
        return;
    }
    // Many queries (a prefill): the keys and values widened once, then the f32 path.
    const int64_t groups = kv_rows == KvRows::shared ? heads : batch * heads;
    std::vector<float> keys(static_cast<size_t>(groups * k_len * dh));
    std::vector<float> values(static_cast<size_t>(groups * k_len * dh));
    widen_f16(k, keys.data(), groups * k_len * dh);
    widen_f16(v, values.data(), groups * k_len * dh);
    attend_heads(q, keys.data(), values.data(), mask, y, batch, heads, q_len, k_len, dh, scale,
                 kv_rows);
}

void embedding(const int32_t* ids, const float* table, float* y, int64_t n, int64_t vocab,
               int64_t width) {
    for (int64_t i = 0; i < n; ++i) {
        if (ids[i] < 0 || ids[i] >= vocab) {
            throw std::out_of_range("token id " + std::to_string(ids[i]) + " is outside [0, " +
                                    std::to_string(vocab) + ")");
        }
        const float* row = table + static_cast<int64_t>(ids[i]) * width;
        std::copy(row, row + width, y + i * width);
    }
}

}  // namespace earshot::backend::cpu
