// TensorStatistics: what the Inspector and `earshot debug tap` show of a tapped value: summary
// numbers, a histogram, and a 2-D slice of an N-d tensor for a heatmap (attention-shaped values
// split by head). Plain data; shared by the command line and the UI.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"

namespace earshot::backend {

// The largest finite half-precision value (IEEE 754 binary16: (2 - 2^-10) * 2^15).
inline constexpr double kF16MaxFinite = 65504.0;

// Over the finite values (NaN and Inf are counted, not summed); all zero when none is finite.
struct TensorStatistics {
    int64_t count = 0;         // every value
    int64_t finite_count = 0;  // values neither NaN nor infinite
    double min = 0.0;
    double max = 0.0;
    double mean = 0.0;
    double std = 0.0;  // population standard deviation
    double rms = 0.0;
    int64_t nan_count = 0;
    int64_t inf_count = 0;
    // Finite values that half precision cannot hold: |x| > kF16MaxFinite (they would become Inf).
    int64_t outside_f16_count = 0;
};

TensorStatistics compute_statistics(std::span<const float> values);

// Equal-width bins over [low, high] (the last bin closed); finite values only.
struct Histogram {
    double low = 0.0;
    double high = 0.0;
    std::vector<int64_t> counts;  // one per bin
    int64_t below = 0;            // finite values under low (a range given by the caller)
    int64_t above = 0;            // finite values over high

    double bin_width() const;
};

// `bins` >= 1 (std::invalid_argument otherwise) over the finite values' min .. max; with
// low < high given, over that range instead.
Histogram compute_histogram(std::span<const float> values, int bins);
Histogram compute_histogram(std::span<const float> values, int bins, double low, double high);

// Which 2-D slice of a tensor to draw. The two drawn axes are the last two of the (head-split)
// tensor; every axis before them is fixed: axis 0 at `batch_row`, a head axis at `head`, any
// other at `position`.
struct SliceChoice {
    int64_t batch_row = 0;
    int64_t head = 0;
    int64_t position = 0;
    // Split the last axis of a rank-3 value [B, N, D] into `heads` heads (D / heads each) and
    // draw head `head` as [N, D / heads]. 0: no split. Rank-4 values [B, Heads, N, Dh] are
    // already split by head.
    int64_t heads = 0;
};

struct Slice2D {
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<float> values;  // [rows, cols] row-major
    std::string row_axis;       // what the rows are: "position", "row", ...
    std::string col_axis;       // "feature", "key", ...
    std::string description;    // "batch row 0, head 3: [1500, 64]"
};

// Whether a value of this shape reads as attention split by head: rank 4 [B, Heads, N, Dh].
bool attention_shaped(std::span<const int64_t> shape);

// The chosen slice. Rank 1: one row; rank 2: the tensor itself; rank 3: batch row b
// ([N, D], or [N, D / heads] of a head when split); rank 4: batch row b, head h ([N, Dh]);
// higher ranks fix their middle axes at `position`. Throws std::out_of_range naming the axis and
// its size for an index outside it, std::invalid_argument for heads that do not divide D.
Slice2D extract_slice(const HostTensor& tensor, const SliceChoice& choice);

// The heads a tapped value is split into by default: its own for a rank-4 value, else 0.
int64_t default_heads(std::span<const int64_t> shape);

}  // namespace earshot::backend
