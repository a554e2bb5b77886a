// The comparison behind every backend tolerance (value_difference.h, backend_test_data.h's
// relative_error): a NaN or a stray infinity on either side is an infinite error, so an output
// with one cannot pass, however small the tolerance's other errors are.
#include "value_difference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "backend_test_data.h"

namespace earshot::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The CUDA backend's logit tolerance (cuda_backend_test.cpp), the loosest the backends use.
constexpr double kLogitsTolerance = 1e-2;

TEST(ValueDifference, FiniteValuesDifferByTheirDistance) {
    EXPECT_EQ(value_difference(1.5, -0.5), 2.0);
    EXPECT_EQ(value_difference(-0.5, 1.5), 2.0);
    EXPECT_EQ(value_difference(3.0, 3.0), 0.0);
}

TEST(ValueDifference, ANonFiniteValueIsAnInfiniteError) {
    EXPECT_EQ(value_difference(kNan, 1.0), kInf);
    EXPECT_EQ(value_difference(1.0, kNan), kInf);
    EXPECT_EQ(value_difference(kNan, kNan), kInf);
    EXPECT_EQ(value_difference(kInf, 1.0), kInf);
    EXPECT_EQ(value_difference(1.0, -kInf), kInf);
    EXPECT_EQ(value_difference(kInf, -kInf), kInf);
    // The same infinity on both sides (a masked logit) agrees.
    EXPECT_EQ(value_difference(kInf, kInf), 0.0);
    EXPECT_EQ(value_difference(-kInf, -kInf), 0.0);
}

TEST(ValueDifference, MaxDifferenceKeepsTheWorstAndRejectsOtherSizes) {
    const std::vector<float> got = {1.0F, 2.5F, -3.0F};
    const std::vector<double> want = {1.0, 2.0, -3.25};
    EXPECT_DOUBLE_EQ(max_difference(std::span<const float>(got), std::span<const double>(want)),
                     0.5);
    const std::vector<double> shorter = {1.0, 2.0};
    EXPECT_EQ(max_difference(std::span<const float>(got), std::span<const double>(shorter)), kInf);
}

// 194 logits within 1e-6 of the wanted ones pass; the same output with one of them NaN (or with
// the wanted side NaN) does not.
TEST(ValueDifference, AnOutputWithOneNanFailsTheComparison) {
    std::vector<float> want(194);
    for (size_t i = 0; i < want.size(); ++i) want[i] = 5.0F * std::sin(0.37F * float(i));
    std::vector<float> got = want;
    for (float& v : got) v += 1e-6F;
    using backend_data::relative_error;
    EXPECT_LT(relative_error(got, want), 1e-5);

    std::vector<float> one_nan = got;
    one_nan[97] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(relative_error(one_nan, want), kInf);
    EXPECT_FALSE(relative_error(one_nan, want) <= kLogitsTolerance);

    std::vector<float> want_nan = want;
    want_nan[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(relative_error(got, want_nan) <= kLogitsTolerance);

    std::vector<float> one_inf = got;
    one_inf[193] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(relative_error(one_inf, want) <= kLogitsTolerance);
}

}  // namespace
}  // namespace earshot::test
