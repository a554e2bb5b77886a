// The alignment map on constructed attention: the matrix keeps the window's positions only, the
// warp path walks each token's block of audio, and the rows start where their blocks do.
#include "earshot/engine/decoding/alignment_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"

using namespace earshot::decoding;
using earshot::backend::HostTensor;

namespace {

// weights [1, 2, S, 40] over <|notimestamps|> + 3 text tokens + EOT: row r looks at audio block
// r (10 positions each of the window's 40... of which 36 are kept); EOT looks everywhere. Both
// heads agree, the second one half as sharply.
HostTensor block_attention() {
    const int64_t s_len = 5;
    const int64_t audio = 40;
    HostTensor weights = HostTensor::f32({1, 2, s_len, audio}, 0.0F);
    auto v = weights.f32_values();
    for (int64_t h = 0; h < 2; ++h) {
        for (int64_t r = 0; r < s_len; ++r) {
            for (int64_t t = 0; t < audio; ++t) {
                const bool inside = r < 4 && t >= r * 9 && t < (r + 1) * 9;
                const float peak = h == 0 ? 0.1F : 0.05F;
                v[static_cast<size_t>((h * s_len + r) * audio + t)] =
                    r == 4 ? 0.025F : (inside ? peak : 0.001F);
            }
        }
    }
    return weights;
}

}  // namespace

TEST(AlignmentMap, PathWalksEachTokensBlockOfAudio) {
    const AlignmentMap map = alignment_map(block_attention(), 1, 3, 72);  // 36 positions kept
    ASSERT_EQ(map.rows, 4);
    ASSERT_EQ(map.positions, 36);
    ASSERT_EQ(map.matrix.size(), 4U * 36U);
    // Inside its block a row scores above the rows that look elsewhere (standardized over tokens).
    for (int64_t r = 0; r < 4; ++r) {
        const int64_t t = r * 9 + 4;  // the middle of block r
        for (int64_t other = 0; other < 4; ++other) {
            if (other == r) continue;
            EXPECT_GT(map.matrix[static_cast<size_t>(r * 36 + t)],
                      map.matrix[static_cast<size_t>(other * 36 + t)])
                << "row " << r << " position " << t;
        }
    }
    // The path starts at (0, 0), ends at (3, 35), is monotonic and reaches row r at block r.
    ASSERT_FALSE(map.path.rows.empty());
    EXPECT_EQ(map.path.rows.front(), 0);
    EXPECT_EQ(map.path.cols.front(), 0);
    EXPECT_EQ(map.path.rows.back(), 3);
    EXPECT_EQ(map.path.cols.back(), 35);
    for (size_t k = 1; k < map.path.rows.size(); ++k) {
        EXPECT_GE(map.path.rows[k], map.path.rows[k - 1]);
        EXPECT_GE(map.path.cols[k], map.path.cols[k - 1]);
        EXPECT_LE(map.path.rows[k] - map.path.rows[k - 1] + map.path.cols[k] - map.path.cols[k - 1],
                  2);
    }
    EXPECT_EQ(map.jump_positions, (std::vector<int64_t>{0, 9, 18, 27}));
}

TEST(AlignmentMap, WeightsThatDoNotCoverTheTokensAreRefused) {
    EXPECT_THROW(alignment_map(block_attention(), 1, 4, 72), std::invalid_argument);
    EXPECT_THROW(alignment_map(HostTensor::f32({2, 2}, 0.0F), 1, 0, 72), std::invalid_argument);
}
