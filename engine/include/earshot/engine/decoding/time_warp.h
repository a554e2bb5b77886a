// The signal steps of openai's word timing (timing.py): a median filter along time and dynamic
// time warping of text tokens onto audio positions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::decoding {

// values [rows, cols]: each row replaced by its running median over `width` (odd) neighbours,
// the row reflected at both ends (d c b | a b c d | c b a). Rows of at most width / 2 values are
// left as they are (there is nothing to reflect them with).
void median_filter(std::span<float> values, int64_t rows, int64_t cols, int64_t width);

// The cheapest monotonic path through cost [rows, cols] from (0, 0) to (rows - 1, cols - 1),
// moving one row, one column or both per step. openai's tie order: a diagonal step only when it
// is strictly the cheapest, then a row step only when strictly the cheapest, else a column step.
// Returned as parallel lists of the cells visited, in order.
struct WarpPath {
    std::vector<int64_t> rows;
    std::vector<int64_t> cols;
};
WarpPath dynamic_time_warp(std::span<const float> cost, int64_t rows, int64_t cols);

}  // namespace earshot::decoding
