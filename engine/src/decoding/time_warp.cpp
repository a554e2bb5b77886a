// The median filter and the dynamic time warp of openai's word timing (timing.py), written from
// the description in time_warp.h.
#include "earshot/engine/decoding/time_warp.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace earshot::decoding {

void median_filter(std::span<float> values, int64_t rows, int64_t cols, int64_t width) {
    if (width < 1 || width % 2 == 0) {
        throw std::invalid_argument("median_filter: width must be odd and positive");
    }
    if (static_cast<int64_t>(values.size()) != rows * cols) {
        throw std::invalid_argument("median_filter: values are not [rows, cols]");
    }
    const int64_t pad = width / 2;
    if (cols <= pad) return;
    std::vector<float> row(static_cast<size_t>(cols));
    std::vector<float> window(static_cast<size_t>(width));
    for (int64_t r = 0; r < rows; ++r) {
        float* data = values.data() + r * cols;
        std::copy(data, data + cols, row.begin());
        for (int64_t c = 0; c < cols; ++c) {
            for (int64_t k = -pad; k <= pad; ++k) {
                int64_t at = c + k;
                if (at < 0) at = -at;                      // reflected at the start
                if (at >= cols) at = 2 * (cols - 1) - at;  // and at the end
                window[static_cast<size_t>(k + pad)] = row[static_cast<size_t>(at)];
            }
            std::nth_element(window.begin(), window.begin() + pad, window.end());
            data[c] = window[static_cast<size_t>(pad)];
        }
    }
}

WarpPath dynamic_time_warp(std::span<const float> cost, int64_t rows, int64_t cols) {
    if (rows < 1 || cols < 1 || static_cast<int64_t>(cost.size()) != rows * cols) {
        throw std::invalid_argument("dynamic_time_warp: cost must be [rows, cols], both >= 1");
    }
    // total [rows + 1, cols + 1] with a border of infinity; step: 0 diagonal, 1 row, 2 column.
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    const int64_t w = cols + 1;
    std::vector<double> total(static_cast<size_t>((rows + 1) * w), kInfinity);
    std::vector<uint8_t> step(static_cast<size_t>((rows + 1) * w), 0);
    total[0] = 0.0;
    for (int64_t j = 1; j <= cols; ++j) {
        for (int64_t i = 1; i <= rows; ++i) {
            const double diagonal = total[static_cast<size_t>((i - 1) * w + j - 1)];
            const double up = total[static_cast<size_t>((i - 1) * w + j)];
            const double left = total[static_cast<size_t>(i * w + j - 1)];
            double best = left;
            uint8_t move = 2;
            if (diagonal < up && diagonal < left) {
                best = diagonal;
                move = 0;
            } else if (up < diagonal && up < left) {
                best = up;
                move = 1;
            }
            total[static_cast<size_t>(i * w + j)] =
                static_cast<double>(cost[static_cast<size_t>((i - 1) * cols + j - 1)]) + best;
            step[static_cast<size_t>(i * w + j)] = move;
        }
    }
    WarpPath path;
    int64_t i = rows;
    int64_t j = cols;
    while (i > 0 || j > 0) {
        path.rows.push_back(i - 1);
        path.cols.push_back(j - 1);
        // On the border only one way leads back to (0, 0).
        const uint8_t move = i == 0 ? 2 : j == 0 ? 1 : step[static_cast<size_t>(i * w + j)];
        if (move == 0) {
            --i;
            --j;
        } else if (move == 1) {
            --i;
        } else {
            --j;
        }
    }
    std::reverse(path.rows.begin(), path.rows.end());
    std::reverse(path.cols.begin(), path.cols.end());
    return path;
}

}  // namespace earshot::decoding
