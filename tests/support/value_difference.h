// The one element-wise comparison behind every backend tolerance: |got - want|, where a value that
// is not finite on either side is an infinite error (NaN never counts as agreement).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace earshot::test {

// |got - want|; infinity when either is NaN or infinite, unless both are the same infinity.
inline double value_difference(double got, double want) {
    if (std::isfinite(got) && std::isfinite(want)) return std::abs(got - want);
    if (got == want) return 0.0;  // the same infinity (NaN never equals itself)
    return std::numeric_limits<double>::infinity();
}

// max over i of value_difference(got[i], want[i]); infinity when the sizes differ.
template <typename Got, typename Want>
double max_difference(std::span<const Got> got, std::span<const Want> want) {
    if (got.size() != want.size()) return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        worst = std::max(
            worst, value_difference(static_cast<double>(got[i]), static_cast<double>(want[i])));
    }
    return worst;
}

}  // namespace earshot::test
