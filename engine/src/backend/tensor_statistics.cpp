// Summary numbers, histograms and 2-D slices of tapped values (tensor_statistics.h).
#include "earshot/engine/backend/tensor_statistics.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "earshot/engine/program/types.h"

namespace earshot::backend {

TensorStatistics compute_statistics(std::span<const float> values) {
    TensorStatistics stats;
    stats.count = static_cast<int64_t>(values.size());
    double sum = 0.0;
    double sum_squares = 0.0;
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (const float v : values) {
        if (std::isnan(v)) {
            ++stats.nan_count;
            continue;
        }
        if (std::isinf(v)) {
            ++stats.inf_count;
            continue;
        }
        const double x = v;
        ++stats.finite_count;
        sum += x;
        sum_squares += x * x;
        low = std::min(low, x);
        high = std::max(high, x);
        if (std::fabs(x) > kF16MaxFinite) ++stats.outside_f16_count;
    }
    if (stats.finite_count == 0) return stats;
    const auto n = static_cast<double>(stats.finite_count);
    stats.min = low;
    stats.max = high;
    stats.mean = sum / n;
    stats.rms = std::sqrt(sum_squares / n);
    // A second pass for the spread: sum_squares / n - mean^2 cancels badly for large means.
    double spread = 0.0;
    for (const float v : values) {
        if (!std::isfinite(v)) continue;
        const double d = static_cast<double>(v) - stats.mean;
        spread += d * d;
    }
    stats.std = std::sqrt(spread / n);
    return stats;
}

double Histogram::bin_width() const {
    return counts.empty() ? 0.0 : (high - low) / static_cast<double>(counts.size());
}

Histogram compute_histogram(std::span<const float> values, int bins) {
    const TensorStatistics stats = compute_statistics(values);
    return compute_histogram(values, bins, stats.min, stats.max);
}

Histogram compute_histogram(std::span<const float> values, int bins, double low, double high) {
    if (bins < 1) throw std::invalid_argument("a histogram needs at least 1 bin");
    Histogram histogram;
    histogram.low = low;
    histogram.high = high;
    histogram.counts.assign(static_cast<size_t>(bins), 0);
    const double width = (high - low) / bins;
    for (const float v : values) {
        if (!std::isfinite(v)) continue;
        const double x = v;
        if (x < low) {
            ++histogram.below;
        } else if (x > high) {
            ++histogram.above;
        } else if (width <= 0.0) {
            ++histogram.counts[0];  // every value the same: one bin holds them
        } else {
            auto bin = static_cast<int64_t>((x - low) / width);
            bin = std::min<int64_t>(bin, bins - 1);
            ++histogram.counts[static_cast<size_t>(bin)];
        }
    }
    return histogram;
}

bool attention_shaped(std::span<const int64_t> shape) { return shape.size() == 4; }

int64_t default_heads(std::span<const int64_t> shape) {
    return attention_shaped(shape) ? shape[1] : 0;
}

namespace {

void check_index(int64_t index, int64_t size, const char* axis) {
    if (index < 0 || index >= size) {
        throw std::out_of_range(std::string(axis) + " " + std::to_string(index) +
                                " is outside 0 .. " + std::to_string(size - 1));
    }
}

}  // namespace

Slice2D extract_slice(const HostTensor& tensor, const SliceChoice& choice) {
    if (tensor.kind() != HostTensor::Kind::f32) {
        throw std::invalid_argument("a slice is drawn from f32 values");
    }
    std::vector<int64_t> shape = tensor.shape();
    const float* data = tensor.f32_values().data();
    Slice2D slice;
    if (shape.empty()) shape = {1};
    if (shape.size() == 1) {
        slice.rows = 1;
        slice.cols = shape[0];
        slice.values.assign(data, data + shape[0]);
        slice.row_axis = "row";
        slice.col_axis = "feature";
        slice.description = "the whole value: [1, " + std::to_string(shape[0]) + "]";
        return slice;
    }
    if (shape.size() == 2) {
        slice.rows = shape[0];
        slice.cols = shape[1];
        slice.values.assign(data, data + shape[0] * shape[1]);
        slice.row_axis = "row";
        slice.col_axis = "feature";
        slice.description = "the whole value: " + program::shape_str(shape);
        return slice;
    }
    check_index(choice.batch_row, shape[0], "batch row");
    if (shape.size() == 3) {
        const int64_t n = shape[1];
        const int64_t d = shape[2];
        const float* row = data + choice.batch_row * n * d;
        slice.row_axis = "position";
        slice.col_axis = "feature";
        if (choice.heads > 0) {
            if (d % choice.heads != 0) {
                throw std::invalid_argument(std::to_string(choice.heads) + " heads do not divide " +
                                            std::to_string(d) + " features");
            }
            check_index(choice.head, choice.heads, "head");
            const int64_t dh = d / choice.heads;
            slice.rows = n;
            slice.cols = dh;
            slice.values.resize(static_cast<size_t>(n * dh));
            for (int64_t i = 0; i < n; ++i) {
                for (int64_t j = 0; j < dh; ++j) {
                    slice.values[static_cast<size_t>(i * dh + j)] =
                        row[i * d + choice.head * dh + j];
                }
            }
            slice.description = "batch row " + std::to_string(choice.batch_row) + ", head " +
                                std::to_string(choice.head) + ": " +
                                program::shape_str(std::vector<int64_t>{n, dh});
            return slice;
        }
        slice.rows = n;
        slice.cols = d;
        slice.values.assign(row, row + n * d);
        slice.description = "batch row " + std::to_string(choice.batch_row) + ": " +
                            program::shape_str(std::vector<int64_t>{n, d});
        return slice;
    }
    // Rank 4 and up: [B, Heads, (middle axes fixed at `position`), N, Dh].
    check_index(choice.head, shape[1], "head");
    const size_t rank = shape.size();
    const int64_t rows = shape[rank - 2];
    const int64_t cols = shape[rank - 1];
    int64_t offset = choice.batch_row;
    offset = offset * shape[1] + choice.head;
    for (size_t axis = 2; axis + 2 < rank; ++axis) {
        check_index(choice.position, shape[axis], "position");
        offset = offset * shape[axis] + choice.position;
    }
    offset *= rows * cols;
    slice.rows = rows;
    slice.cols = cols;
    slice.values.assign(data + offset, data + offset + rows * cols);
    slice.row_axis = "position";
    slice.col_axis = "feature";
    slice.description = "batch row " + std::to_string(choice.batch_row) + ", head " +
                        std::to_string(choice.head) + ": " +
                        program::shape_str(std::vector<int64_t>{rows, cols});
    return slice;
}

}  // namespace earshot::backend
