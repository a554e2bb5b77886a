// linear_blocks and embedding_blocks: the few-row products as integer block dots over each weight
// row (Q8Block activations for the legacy types, Q8KBlock ones for the k-quants), the many-row
// ones as decoded f32 panels through sgemm.
#include "backend/cpu/quant/block_linear.h"

#include <cblas.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cpu/cpu_gemv_f16.h"
#include "backend/cpu/quant/block_dot_k.h"
#include "backend/cpu/quant/q8_activations.h"

namespace earshot::backend::cpu {

namespace {

// Weights one claimed chunk of few-row product rows holds at least (cpu_gemv_f16.cpp's grain).
constexpr int64_t kGrainBytes = 16 << 10;
// Values of f32 panel handed to one sgemm call (linear_f16's panel: 2 MiB).
constexpr int64_t kPanelValues = int64_t{1} << 19;

// x . w for k values, eight partial sums (vectorized by the compiler), added in a fixed order.
float dot_f32(const float* x, const float* w, int64_t k) {
    float partial[8] = {};
    int64_t i = 0;
    for (; i + 8 <= k; i += 8) {
        for (int64_t l = 0; l < 8; ++l) partial[l] += x[i + l] * w[i + l];
    }
    float sum = ((partial[0] + partial[1]) + (partial[2] + partial[3])) +
                ((partial[4] + partial[5]) + (partial[6] + partial[7]));
    for (; i < k; ++i) sum += x[i] * w[i];
    return sum;
}

// Rows [begin, end) of y for every row of x (its activation blocks `xq`, `blocks` per row), each
// weight row read once for up to kMaxRows rows of x by `dot` (a BlockDotRows or KBlockDotRows).
template <typename Activations, typename Dot, int kMaxRows>
void dot_weight_rows(const Activations* xq, int64_t blocks, const BlockMatrix& w, const float* bias,
                     float* y, int64_t m, int64_t n, Dot dot, int64_t begin, int64_t end) {
    float out[static_cast<size_t>(kMaxRows)];
    for (int64_t j = begin; j < end; ++j) {
        const float b = bias != nullptr ? bias[j] : 0.0F;
        for (int64_t r0 = 0; r0 < m; r0 += kMaxRows) {
            const int rows = static_cast<int>(std::min<int64_t>(kMaxRows, m - r0));
            dot(w.row(j), xq + r0 * blocks, blocks, rows, blocks, out);
            for (int r = 0; r < rows; ++r) y[(r0 + r) * n + j] = out[r] + b;
        }
    }
}

// The rows of x quantized to `Activations` by `quantize` (`values` per block), then the integer
// block dots over each weight row on `pool`.
template <typename Activations, int kMaxRows, typename Dot>
void integer_rows(const float* x, const BlockMatrix& w, const float* bias, float* y, int64_t m,
                  int64_t n, ThreadPool& pool, int64_t grain, int64_t values,
                  void (*quantize)(const float*, int64_t, Activations*), Dot dot) {
    const int64_t blocks = w.row_values / values;
    thread_local std::vector<Activations> xq;  // [m, K / values]
    xq.resize(static_cast<size_t>(m * blocks));
    for (int64_t r = 0; r < m; ++r) {
        quantize(x + r * w.row_values, w.row_values, xq.data() + r * blocks);
    }
    const Activations* activations = xq.data();
    pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        dot_weight_rows<Activations, Dot, kMaxRows>(activations, blocks, w, bias, y, m, n, dot,
                                                    begin, end);
    });
}

// The same rows decoded to f32 one at a time (a type without a block dot).
void decoded_rows(const float* x, const BlockMatrix& w, const float* bias, float* y, int64_t m,
                  int64_t n, int64_t begin, int64_t end) {
    thread_local std::vector<float> row;  // [K]
    row.resize(static_cast<size_t>(w.row_values));
    for (int64_t j = begin; j < end; ++j) {
        decode_block_rows(w, j, 1, row.data());
        const float b = bias != nullptr ? bias[j] : 0.0F;
        for (int64_t r = 0; r < m; ++r) {
            y[r * n + j] = dot_f32(x + r * w.row_values, row.data(), w.row_values) + b;
        }
    }
}

void few_rows(const float* x, const BlockMatrix& w, const float* bias, float* y, int64_t m,
              int64_t n, ThreadPool& pool, BlockDotIsa isa) {
    const int64_t grain = std::max<int64_t>(1, kGrainBytes / std::max<int64_t>(1, w.row_bytes));
    if (const BlockDotRows dot = block_dot_rows(w.type, isa)) {
        integer_rows<Q8Block, kBlockDotMaxRows>(x, w, bias, y, m, n, pool, grain, kQ8BlockValues,
                                                quantize_q8_activations, dot);
        return;
    }
    if (const KBlockDotRows dot = k_block_dot_rows(w.type, isa)) {
        integer_rows<Q8KBlock, kKBlockDotMaxRows>(x, w, bias, y, m, n, pool, grain, kQ8KBlockValues,
                                                  quantize_q8k_activations, dot);
        return;
    }
    pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        decoded_rows(x, w, bias, y, m, n, begin, end);
    });
}

// Panels of weight rows decoded to f32, each multiplied by OpenBLAS.
void many_rows(const float* x, const BlockMatrix& w, const float* bias, float* y, int64_t m,
               int64_t n) {
    const int64_t k = w.row_values;
    const int64_t panel_rows = std::min(n, std::max<int64_t>(16, kPanelValues / k));
    thread_local std::vector<float> panel;  // [panel_rows, K]
    panel.resize(static_cast<size_t>(panel_rows * k));
    for (int64_t j0 = 0; j0 < n; j0 += panel_rows) {
        const int64_t rows = std::min(panel_rows, n - j0);
        // On the calling thread, as linear_f16 widens its panels: OpenBLAS's threads spin between
        // its calls, and the pool's would fight them for the cores.
        float* values = panel.data();
        decode_block_rows(w, j0, rows, values);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(m),
                    static_cast<blasint>(rows), static_cast<blasint>(k), 1.0F, x,
                    static_cast<blasint>(k), values, static_cast<blasint>(k), 0.0F, y + j0,
                    static_cast<blasint>(n));
    }
    if (bias == nullptr) return;
    for (int64_t row = 0; row < m; ++row) {
        float* out = y + row * n;
        for (int64_t j = 0; j < n; ++j) out[j] += bias[j];
    }
}

}  // namespace

void decode_block_rows(const BlockMatrix& w, int64_t first, int64_t rows, float* out) {
    checkpoint::dequantize_ggml_blocks(
        w.type, std::span(w.row(first), static_cast<size_t>(rows * w.row_bytes)),
        std::span(out, static_cast<size_t>(rows * w.row_values)));
}

void linear_blocks(const float* x, const BlockMatrix& w, const float* bias, float* y, int64_t m,
                   int64_t k, int64_t n, ThreadPool& pool, BlockDotIsa isa) {
    if (k != w.row_values || n != w.rows) {
        throw std::logic_error("linear_blocks: a product of " + std::to_string(k) + " x " +
                               std::to_string(n) + " over a matrix of " + std::to_string(w.rows) +
                               " rows of " + std::to_string(w.row_values) + " values");
    }
    if (m <= kHalfGemvRows) {
        few_rows(x, w, bias, y, m, n, pool, isa);
    } else {
        many_rows(x, w, bias, y, m, n);
    }
}

void embedding_blocks(const int32_t* ids, const BlockMatrix& table, float* y, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
        if (ids[i] < 0 || ids[i] >= table.rows) {
            throw std::out_of_range("token id " + std::to_string(ids[i]) + " is outside [0, " +
                                    std::to_string(table.rows) + ")");
        }
        decode_block_rows(table, ids[i], 1, y + i * table.row_values);
    }
}

}  // namespace earshot::backend::cpu
