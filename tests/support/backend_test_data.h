// Inputs and comparisons shared by the backend tests: deterministic mels and token rows, and the
// relative error (max |got - want| / max |want|) every backend tolerance is stated in, with a
// non-finite value as an infinite error.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "value_difference.h"

namespace earshot::test::backend_data {

using earshot::backend::HostTensor;

// Loud mel frames at the start: a conv that pads on the wrong side or drops the first frame
// turns these into large errors.
constexpr int64_t kLoudFrames = 3;

// mel [B, Mels, Frames]: kLoudFrames loud frames at the start, a gentle ramp after; `variant`
// gives a clearly different input of the same shape.
inline HostTensor test_mel(int64_t batch, int64_t mels, int64_t frames, int variant) {
    std::vector<float> values;
    values.reserve(static_cast<size_t>(batch * mels * frames));
    for (int64_t b = 0; b < batch; ++b) {
        for (int64_t m = 0; m < mels; ++m) {
            for (int64_t t = 0; t < frames; ++t) {
                double v = 0.0;
                if (t < kLoudFrames) {
                    v = 4.0 + 0.5 * static_cast<double>((m + t + b + variant) % 3);
                } else {
                    v = -1.0 + 2.0 * static_cast<double>(t) / static_cast<double>(frames) -
                        0.005 * static_cast<double>(m) + 0.2 * static_cast<double>(b) +
                        0.3 * variant * std::sin(0.1 * static_cast<double>(m + t));
                }
                values.push_back(static_cast<float>(v));
            }
        }
    }
    return HostTensor::f32({batch, mels, frames}, std::move(values));
}

// tokens [B, S] drawn uniformly from the vocabulary.
inline std::vector<std::vector<int32_t>> random_tokens(int64_t batch, int64_t length, int64_t vocab,
                                                       uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(vocab - 1));
    std::vector<std::vector<int32_t>> rows(static_cast<size_t>(batch));
    for (auto& row : rows) {
        for (int64_t s = 0; s < length; ++s) row.push_back(pick(rng));
    }
    return rows;
}

// tokens [B, end - begin] from columns begin .. end - 1.
inline HostTensor token_tensor(const std::vector<std::vector<int32_t>>& rows, int64_t begin,
                               int64_t end) {
    std::vector<int32_t> values;
    for (const auto& row : rows)
        values.insert(values.end(), row.begin() + begin, row.begin() + end);
    return HostTensor::i32({static_cast<int64_t>(rows.size()), end - begin}, std::move(values));
}

inline double max_abs(std::span<const double> values) {
    double m = 0.0;
    for (double v : values) m = std::max(m, std::abs(v));
    return m;
}

// max |got - want| / max |want|; infinite when a value on either side is not finite or the sizes
// differ (value_difference.h).
inline double relative_error(std::span<const float> got, std::span<const double> want) {
    EXPECT_EQ(got.size(), want.size());
    return max_difference(got, want) / max_abs(want);
}

inline double relative_error(std::span<const float> got, std::span<const float> want) {
    const std::vector<double> wide(want.begin(), want.end());
    return relative_error(got, std::span<const double>(wide));
}

template <typename T>
int64_t argmax(std::span<const T> row) {
    return std::max_element(row.begin(), row.end()) - row.begin();
}

// Row `index` of length `width` from a flat array.
template <typename T>
std::span<const T> row_of(std::span<const T> flat, int64_t index, int64_t width) {
    return flat.subspan(static_cast<size_t>(index * width), static_cast<size_t>(width));
}

}  // namespace earshot::test::backend_data
