// What the per-kernel tests of the CUDA module share: the module's KernelTable reached through
// dlsym, device buffers freed after each test, random inputs, f16 conversions, tolerance
// comparisons and the double-precision attention reference (cuda_kernels_test.cpp,
// cuda_step_kernels_test.cpp).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "backend/cuda/kernel_table.h"
#include "cuda_test_device.h"
#include "earshot/base/half_float.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "value_difference.h"

namespace earshot::test::kernel_table {

using earshot::backend::cuda::KernelTable;
using earshot::base::f16_to_f32;
using earshot::base::f32_to_f16;
using earshot::test::value_difference;

// An f16 value's rounding: half an ulp relative (2^-11), doubled for an f32 result that lands
// on the other side of a rounding boundary, and the smallest subnormal step (2^-24) near zero.
inline double f16_tolerance(double want) { return std::abs(want) * 0x1p-10 + 0x1p-24; }

inline std::vector<float> random_values(size_t n, uint32_t seed, float scale = 1.0F) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0F, scale);
    std::vector<float> v(n);
    for (float& x : v) x = normal(random);
    return v;
}

inline std::vector<uint16_t> to_f16(const std::vector<float>& values) {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i) bits[i] = f32_to_f16(values[i]);
    return bits;
}

// The largest error relative to its tolerance (<= 1 passes), and the largest absolute error.
struct Comparison {
    double worst_ratio = 0.0;
    double worst_error = 0.0;
};

template <typename Got, typename Tolerance>
Comparison compare(std::span<const Got> got, std::span<const double> want, Tolerance tolerance) {
    Comparison c;
    if (got.size() != want.size()) return {INFINITY, INFINITY};
    for (size_t i = 0; i < got.size(); ++i) {
        const double error = value_difference(static_cast<double>(got[i]), want[i]);
        c.worst_error = std::max(c.worst_error, error);
        c.worst_ratio = std::max(c.worst_ratio, error / tolerance(want[i]));
    }
    return c;
}

#define EXPECT_WITHIN(comparison, what)                                      \
    do {                                                                     \
        const Comparison earshot_c_ = (comparison);                          \
        EXPECT_LE(earshot_c_.worst_ratio, 1.0)                               \
            << (what) << ": worst error " << earshot_c_.worst_error << " ("  \
            << earshot_c_.worst_ratio << " times the tolerance)";            \
        if (earshot_c_.worst_ratio <= 1.0) {                                 \
            std::printf("%s: worst error %.3g\n", std::string(what).c_str(), \
                        earshot_c_.worst_error);                             \
        }                                                                    \
    } while (false)

inline int64_t I(size_t value) { return static_cast<int64_t>(value); }
inline double D(float value) { return value; }

inline double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

class KernelTableFixture : public testing::Test {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        const std::string path = earshot::backend::cuda_module_location();
        void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
        ASSERT_NE(module, nullptr) << path;
        using Entry = const KernelTable* (*)(int);
        auto entry =
            reinterpret_cast<Entry>(dlsym(module, earshot::backend::cuda::kKernelTableEntryName));
        ASSERT_NE(entry, nullptr) << path << " lacks its kernel table";
        k_ = entry(earshot::backend::cuda::kKernelTableVersion);
        ASSERT_NE(k_, nullptr);
    }

    void TearDown() override {
        if (k_ == nullptr) return;
        for (void* p : buffers_) k_->release(p);
    }

    // Device memory holding `host` (or uninitialised `n` elements), freed after the test.
    template <typename T>
    T* device(const std::vector<T>& host) {
        T* p = device<T>(host.size());
        k_->upload(p, host.data(), static_cast<int64_t>(host.size() * sizeof(T)));
        return p;
    }
    template <typename T>
    T* device(size_t n) {
        void* p = k_->allocate(static_cast<int64_t>(std::max<size_t>(n, 1) * sizeof(T)));
        buffers_.push_back(p);
        return static_cast<T*>(p);
    }
    template <typename T>
    std::vector<T> host(const T* p, size_t n) {
        k_->synchronize();
        std::vector<T> out(n);
        k_->download(out.data(), p, static_cast<int64_t>(n * sizeof(T)));
        return out;
    }
    std::vector<float> host_f16(const uint16_t* p, size_t n) {
        std::vector<float> out;
        for (uint16_t bits : host(p, n)) out.push_back(f16_to_f32(bits));
        return out;
    }

    const KernelTable* k_ = nullptr;
    std::vector<void*> buffers_;
};

// softmax(q k^T * scale) v for one query per (batch, head), keys masked.
inline std::vector<double> attend_reference(const std::vector<float>& q,
                                            const std::vector<double>& k,
                                            const std::vector<double>& v, const uint8_t* mask,
                                            size_t bh, size_t q_len, size_t k_len, size_t dh,
                                            double scale) {
    std::vector<double> y;
    for (size_t h = 0; h < bh; ++h) {
        for (size_t i = 0; i < q_len; ++i) {
            std::vector<double> p(k_len, 0.0);
            double top = -INFINITY;
            for (size_t j = 0; j < k_len; ++j) {
                if (mask != nullptr && mask[i * k_len + j] == 0) continue;
                double dot = 0.0;
                for (size_t d = 0; d < dh; ++d) {
                    dot += static_cast<double>(q[(h * q_len + i) * dh + d]) *
                           k[(h * k_len + j) * dh + d];
                }
                p[j] = dot * scale;
                top = std::max(top, p[j]);
            }
            double sum = 0.0;
            for (size_t j = 0; j < k_len; ++j) {
                const bool shown = mask == nullptr || mask[i * k_len + j] != 0;
                p[j] = shown ? std::exp(p[j] - top) : 0.0;
                sum += p[j];
            }
            for (size_t d = 0; d < dh; ++d) {
                double acc = 0.0;
                for (size_t j = 0; j < k_len; ++j) acc += p[j] * v[(h * k_len + j) * dh + d];
                y.push_back(sum > 0.0 ? acc / sum : 0.0);
            }
        }
    }
    return y;
}

inline std::vector<double> widen(const std::vector<float>& values) {
    return {values.begin(), values.end()};
}

inline std::vector<double> widen_f16(const std::vector<uint16_t>& bits) {
    std::vector<double> out;
    for (uint16_t b : bits) out.push_back(f16_to_f32(b));
    return out;
}

}  // namespace earshot::test::kernel_table
