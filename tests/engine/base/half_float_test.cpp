// f16 / bf16 <-> f32 conversions (earshot_base): special values bit for bit, every f16 pattern
// round-tripped, narrowing checked against the compiler's _Float16 and an independent
// nearest-value search.
#include "earshot/base/half_float.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

namespace earshot::base {
namespace {

uint32_t bits_of(float value) { return std::bit_cast<uint32_t>(value); }

TEST(HalfFloat, F16SpecialValuesWidenExactly) {
    EXPECT_EQ(bits_of(f16_to_f32(0x0000)), 0x00000000u);  // +0
    EXPECT_EQ(bits_of(f16_to_f32(0x8000)), 0x80000000u);  // -0
    EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);                  // 1
    EXPECT_EQ(f16_to_f32(0xc000), -2.0f);                 // -2
    EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);              // largest finite
    EXPECT_EQ(f16_to_f32(0x0400), 0x1p-14f);              // smallest normal
    EXPECT_EQ(f16_to_f32(0x0001), 0x1p-24f);              // smallest subnormal
    EXPECT_EQ(f16_to_f32(0x03ff), 1023.0f * 0x1p-24f);    // largest subnormal
    EXPECT_EQ(f16_to_f32(0x8001), -0x1p-24f);             // negative subnormal
    EXPECT_EQ(f16_to_f32(0x3555), 0x1.554p-2f);           // ~1/3
    EXPECT_EQ(f16_to_f32(0x7c00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(f16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(f16_to_f32(0x7e00)));
    EXPECT_TRUE(std::isnan(f16_to_f32(0x7c01)));  // signalling payload stays a NaN
    EXPECT_TRUE(std::signbit(f16_to_f32(0xfe00)));
}

TEST(HalfFloat, Bf16SpecialValuesWidenExactly) {
    EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
    EXPECT_EQ(bits_of(bf16_to_f32(0x8000)), 0x80000000u);
    EXPECT_EQ(bf16_to_f32(0x7f7f), std::bit_cast<float>(0x7f7f0000u));  // largest finite
    EXPECT_EQ(bf16_to_f32(0x0001), std::bit_cast<float>(0x00010000u));  // a subnormal
    EXPECT_EQ(bf16_to_f32(0x7f80), std::numeric_limits<float>::infinity());
    EXPECT_EQ(bf16_to_f32(0xff80), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(bf16_to_f32(0x7fc0)));
    EXPECT_EQ(bf16_to_f32(0xc040), -3.0f);
}

TEST(HalfFloat, EveryF16PatternRoundTrips) {
    int nans = 0;
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const float wide = f16_to_f32(static_cast<uint16_t>(bits));
        if (std::isnan(wide)) {
            ++nans;
            EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(wide))));
            continue;
        }
        ASSERT_EQ(f32_to_f16(wide), bits) << std::hex << bits;
    }
    EXPECT_EQ(nans, 2 * 1023);  // exponent 31, mantissa non-zero, both signs
}

TEST(HalfFloat, F16NarrowingRoundsToNearestEven) {
    EXPECT_EQ(f32_to_f16(1.0f + 0x1p-11f), 0x3c00);      // halfway: to even (down)
    EXPECT_EQ(f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);  // halfway: to even (up)
    EXPECT_EQ(f32_to_f16(1.0f + 0x1.8p-11f), 0x3c01);    // past halfway
    EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // halfway past 65504 rounds to infinity
    EXPECT_EQ(f32_to_f16(-1e10f), 0xfc00);
    EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000);      // half the smallest subnormal: to even (0)
    EXPECT_EQ(f32_to_f16(0x1.8p-25f), 0x0001);    // above it
    EXPECT_EQ(f32_to_f16(3 * 0x1p-25f), 0x0002);  // 1.5 units: to even (2)
    EXPECT_EQ(f32_to_f16(-0x1p-30f), 0x8000);     // underflow keeps the sign
    EXPECT_EQ(f32_to_f16(0x1.ffcp-15f), 0x0400);  // rounds up into the smallest normal
    EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::quiet_NaN()) & 0x7e00, 0x7e00);
}

TEST(HalfFloat, Bf16NarrowingRoundsToNearestEven) {
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // halfway: even (down)
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // halfway: even (up)
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7f7fffffu)), 0x7f80);  // overflow to infinity
    EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
    const uint16_t nan = f32_to_bf16(std::bit_cast<float>(0xff800001u));  // NaN, tiny payload
    EXPECT_EQ(nan & 0xffc0, 0xffc0);                                      // quiet, signed
}

// Narrowing compared with independent conversions over a million random floats of every
// magnitude (random bit patterns).
TEST(HalfFloat, NarrowingMatchesIndependentConversions) {
    std::mt19937 rng(12345);
    for (int i = 0; i < 1'000'000; ++i) {
        const float value = std::bit_cast<float>(static_cast<uint32_t>(rng()));
        if (std::isnan(value)) continue;
#if defined(__FLT16_MAX__)
        const auto half = static_cast<_Float16>(value);
        uint16_t expected = 0;
        std::memcpy(&expected, &half, sizeof(expected));
        ASSERT_EQ(f32_to_f16(value), expected) << std::hexfloat << value;
#endif
        // bf16: the nearest of the two truncation neighbours, ties to the even one.
        const uint32_t bits = bits_of(value);
        const uint32_t down = bits & 0xffff0000u;
        const uint32_t up = down + 0x10000u;
        const double to_down =
            std::fabs(static_cast<double>(value) - static_cast<double>(std::bit_cast<float>(down)));
        const double to_up = std::isinf(std::bit_cast<float>(up))
                                 ? std::ldexp(static_cast<double>(bits & 0xffffu), -16)
                                 : std::fabs(static_cast<double>(std::bit_cast<float>(up)) -
                                             static_cast<double>(value));
        uint32_t expected_bf16 = down >> 16;
        if (std::isinf(std::bit_cast<float>(up))) {
            // Round up into infinity when at or past halfway (low 16 bits >= 0x8000, ties to even).
            const uint32_t low = bits & 0xffffu;
            if (low > 0x8000u || (low == 0x8000u && (expected_bf16 & 1u) != 0)) {
                expected_bf16 = up >> 16;
            }
        } else if (to_up < to_down || (to_up == to_down && ((down >> 16) & 1u) != 0)) {
            expected_bf16 = up >> 16;
        }
        ASSERT_EQ(f32_to_bf16(value), expected_bf16) << std::hexfloat << value;
    }
}

// The bulk narrowing (the CPU's F16C conversion where it has it) gives the one-value function's
// bits for every sign and exponent: mantissas at and around the rounding ties, NaNs quiet and
// signalling, infinities, subnormal results and those that round to zero or overflow, a million
// random patterns, and a length that leaves a tail past the last group of eight.
TEST(HalfFloat, BulkNarrowingGivesTheOneValueBits) {
    std::vector<float> values;
    std::mt19937 rng(777);
    for (uint32_t sign_exponent = 0; sign_exponent < 512; ++sign_exponent) {
        for (const uint32_t mantissa :
             {0x000000u, 0x000001u, 0x000fffu, 0x001000u, 0x001001u, 0x002000u, 0x003000u,
              0x3fffffu, 0x400000u, 0x7fe000u, 0x7ff000u, 0x7fffffu}) {
            values.push_back(std::bit_cast<float>((sign_exponent << 23) | mantissa));
        }
        for (int i = 0; i < 20; ++i) {
            values.push_back(std::bit_cast<float>((sign_exponent << 23) |
                                                  (static_cast<uint32_t>(rng()) & 0x7fffffu)));
        }
    }
    for (int i = 0; i < 1'000'000; ++i) values.push_back(std::bit_cast<float>(uint32_t(rng())));
    values.resize(values.size() / 8 * 8 + 5);
    std::vector<uint16_t> bulk(values.size());
    narrow_to_f16(values, bulk);
    size_t different = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (bulk[i] != f32_to_f16(values[i])) {
            if (++different <= 5) {
                ADD_FAILURE() << "value bits 0x" << std::hex << bits_of(values[i]) << ": bulk 0x"
                              << bulk[i] << ", one value 0x" << f32_to_f16(values[i]);
            }
        }
    }
    EXPECT_EQ(different, 0U) << "of " << values.size();
    std::vector<uint16_t> short_room(3);
    EXPECT_THROW(narrow_to_f16(std::span<const float>(values).first(4), short_room),
                 std::invalid_argument);
}

}  // namespace
}  // namespace earshot::base
