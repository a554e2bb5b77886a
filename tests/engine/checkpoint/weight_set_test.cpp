// convert_to_f32: a stored f16 or bf16 weight widened to f32 through the base library's half-float
// conversions (moved here from the half-float tests, which test earshot_base alone).
#include "earshot/engine/checkpoint/weight_set.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "earshot/base/half_float.h"

namespace earshot::checkpoint {
namespace {

using base::bf16_to_f32;

uint32_t bits_of(float value) { return std::bit_cast<uint32_t>(value); }

TEST(HalfFloat, ConvertToF32WidensAWeight) {
    const std::vector<uint16_t> halves = {0x3c00, 0x0001, 0xfc00, 0x7e00, 0x8000, 0x7bff};
    std::vector<std::byte> bytes(halves.size() * 2);
    std::memcpy(bytes.data(), halves.data(), bytes.size());
    Weight weight{"p", "p", "f", WeightDType::f16, {2, 3}, bytes};
    std::vector<float> out(6);
    convert_to_f32(weight, out);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[1], 0x1p-24f);
    EXPECT_EQ(out[2], -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(out[3]));
    EXPECT_EQ(bits_of(out[4]), 0x80000000u);
    EXPECT_EQ(out[5], 65504.0f);

    weight.dtype = WeightDType::bf16;
    convert_to_f32(weight, out);
    EXPECT_EQ(out[0], bf16_to_f32(0x3c00));
    EXPECT_EQ(bits_of(out[1]), 0x00010000u);

    std::vector<float> too_small(5);
    EXPECT_THROW(convert_to_f32(weight, too_small), std::invalid_argument);
}

}  // namespace
}  // namespace earshot::checkpoint
