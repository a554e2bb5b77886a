// linear_blocks and embedding_blocks: the few-row products as integer block dots over each weight
// row (or rows decoded one at a time for the k-quants), the many-row ones as decoded f32 panels
// through sgemm.
#include "backend/cpu/quant/block_linear.h"

#include <cblas.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cpu/cpu_gemv_f16.h"
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

// Rows [begin, end) of y for every row of x, each weight row read once for up to four rows of x.
void dot_weight_rows(const Q8Block* xq, const BlockMatrix& w, const float* bias, float* y,
                     int64_t m, int64_t n, BlockDotRows dot, int64_t begin, int64_t end) {
    const int64_t blocks = w.row_values / kQ8BlockValues;
    float out[kBlockDotMaxRows];
    for (int64_t j = begin; j < end; ++j) {
        const float b = bias != nullptr ? bias[j] : 0.0F;
        for (int64_t r0 = 0; r0 < m; r0 += kBlockDotMaxRows) {
            const int rows = static_cast<int>(std::min<int64_t>(kBlockDotMaxRows, m - r0));
            dot(w.row(j), xq + r0 * blocks, blocks, rows, blocks, out);
            for (int r = 0; r < rows; ++r) y[(r0 + r) * n + j] = out[r] + b;
        }
    }
}

// The same rows decoded to f32 one at a time (types without a block dot).
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
    const BlockDotRows dot = block_dot_rows(w.type, isa);
    if (dot == nullptr) {
        pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
            decoded_rows(x, w, bias, y, m, n, begin, end);
        });
        return;
    }
    const int64_t blocks = w.row_values / kQ8BlockValues;
    thread_local std::vector<Q8Block> xq;  // [m, K / 32]
    xq.resize(static_cast<size_t>(m * blocks));
    for (int64_t r = 0; r < m; ++r) {
        quantize_q8_activations(x + r * w.row_values, w.row_values, xq.data() + r * blocks);
    }
    const Q8Block* activations = xq.data();
    pool.parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        dot_weight_rows(activations, w, bias, y, m, n, dot, begin, end);
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
