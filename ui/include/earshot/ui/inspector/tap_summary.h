// TapSummary: what the tap panel says about a tapped value: its range and moments over the finite
// values, the NaN and Inf counts, how many finite values f16 cannot hold, and a histogram; and
// TapSlice, the 2-D slice of it the heatmap draws.
#pragma once

#include <QList>
#include <cstdint>
#include <vector>

namespace earshot::ui {

// The largest finite f16 (IEEE 754 binary16): (2 - 2^-10) * 2^15.
inline constexpr double kF16Max = 65504.0;

struct TapSummary {
    qint64 count = 0;   // all values
    qint64 finite = 0;  // of which finite; the moments are over these
    double min = 0.0;
    double max = 0.0;
    double mean = 0.0;
    double std = 0.0;  // population standard deviation
    double rms = 0.0;
    qint64 nan = 0;
    qint64 inf = 0;
    qint64 outsideF16 = 0;  // finite values with |x| > kF16Max
    // `bins` equal bins over [min, max] of the finite values (max falls in the last bin); one bin
    // holding everything when min == max; none without finite values.
    std::vector<qint64> histogram;
};

TapSummary summarize(const std::vector<float>& values, int bins);

// The last two dimensions of a row-major tensor at fixed indices of the leading ones: rows x cols
// (a vector is one row; a scalar one cell). `leading` has shape.size() - 2 entries (fewer are
// taken as 0); out-of-range indices are clamped.
struct TapSlice {
    int rows = 0;
    int cols = 0;
    std::vector<float> values;  // [rows, cols]
    float at(int row, int col) const {
        return values[static_cast<size_t>(row) * static_cast<size_t>(cols) +
                      static_cast<size_t>(col)];
    }
};

TapSlice sliceOf(const std::vector<float>& values, const QList<qint64>& shape,
                 const QList<qint64>& leading);

}  // namespace earshot::ui
