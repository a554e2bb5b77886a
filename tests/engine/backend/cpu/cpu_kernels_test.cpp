// The CPU kernels one by one against straightforward double-precision loops: the fast exp/erf,
// masked softmax, the f16-weight GEMV (tails included), attention over f16 caches and conv1d's
// padding.
#include "backend/cpu/cpu_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_attention_one_query.h"
#include "backend/cpu/cpu_attention_tiles.h"
#include "backend/cpu/cpu_gemv_f16.h"
#include "earshot/base/half_float.h"
#include "value_difference.h"

namespace {

namespace cpu = earshot::backend::cpu;

std::vector<float> random_values(size_t n, uint32_t seed, float scale = 1.0F) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0F, scale);
    std::vector<float> v(n);
    for (float& x : v) x = normal(random);
    return v;
}

TEST(CpuKernels, GeluMatchesTheErfForm) {
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(static_cast<float>(i) / 400.0F);  // [-10, 10]
    std::vector<float> y(x.size());
    cpu::gelu_erf(x.data(), y.data(), static_cast<int64_t>(x.size()));
    double worst = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double xd = x[i];
        const double exact = 0.5 * xd * (1.0 + std::erf(xd / std::sqrt(2.0)));
        worst = std::max(worst, earshot::test::value_difference(y[i], exact));
    }
    EXPECT_LT(worst, 2e-6);  // absolute, over |x| <= 10
}

// values rounded to f16 in place; returns their f16 bits (what an f16 cache holds).
std::vector<uint16_t> round_to_half(std::vector<float>& values) {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        bits[i] = earshot::base::f32_to_f16(values[i]);
        values[i] = earshot::base::f16_to_f32(bits[i]);
    }
    return bits;
}

// q_len 1 takes the decoder-step path (plain loops), longer queries the register tiles.
class CpuAttention : public ::testing::TestWithParam<int64_t> {};

TEST_P(CpuAttention, MatchesDoublePrecisionWithAMask) {
    const int64_t heads = 2, q_len = GetParam(), k_len = 7, dh = 16;
    auto q = random_values(size_t(heads * q_len * dh), 1, 2.0F);
    auto k = random_values(size_t(heads * k_len * dh), 2, 2.0F);
    auto v = random_values(size_t(heads * k_len * dh), 3);
    std::vector<uint8_t> mask(size_t(q_len * k_len));
    for (int64_t i = 0; i < q_len; ++i) {
        for (int64_t j = 0; j < k_len; ++j) mask[size_t(i * k_len + j)] = (j <= i + 1) ? 1 : 0;
    }
    if (q_len > 1) mask[0] = mask[1] = 0;  // row 0 sees nothing: its output must be zeros
    if (q_len == 1) mask[3] = 0;           // a hole in the middle
    std::vector<float> y(size_t(heads * q_len * dh));
    const float scale = 1.0F / std::sqrt(float(dh));
    cpu::attention(q.data(), k.data(), v.data(), mask.data(), y.data(), 1, heads, q_len, k_len, dh,
                   scale);
    for (int64_t h = 0; h < heads; ++h) {
        for (int64_t i = 0; i < q_len; ++i) {
            std::vector<double> p(size_t(k_len), 0.0);
            double max = -INFINITY, sum = 0.0;
            for (int64_t j = 0; j < k_len; ++j) {
                if (!mask[size_t(i * k_len + j)]) continue;
                double s = 0;
                for (int64_t d = 0; d < dh; ++d) {
                    s += double(q[size_t((h * q_len + i) * dh + d)]) *
                         double(k[size_t((h * k_len + j) * dh + d)]);
                }
                p[size_t(j)] = s * double(scale);
                max = std::max(max, p[size_t(j)]);
            }
            for (int64_t j = 0; j < k_len; ++j) {
                p[size_t(j)] = mask[size_t(i * k_len + j)] ? std::exp(p[size_t(j)] - max) : 0.0;
                sum += p[size_t(j)];
            }
            for (int64_t d = 0; d < dh; ++d) {
                double want = 0;
                for (int64_t j = 0; j < k_len; ++j) {
                    if (sum > 0)
                        want += p[size_t(j)] / sum * double(v[size_t((h * k_len + j) * dh + d)]);
                }
                EXPECT_NEAR(y[size_t((h * q_len + i) * dh + d)], want, 2e-6)
                    << "head " << h << " row " << i << " dim " << d;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(QueryLengths, CpuAttention, ::testing::Values(1, 5));

// Many queries per head (the encoder's self-attention, a prompt's prefill) against double
// precision: register tiles where the CPU and head size allow (query blocks that end mid-tile,
// keys that end mid-panel, beams sharing keys and values, masked rows and a row that sees
// nothing), two sgemms per head otherwise (head size 20). The f16-cache prefill widens the same
// values and must give the same result exactly.
TEST(CpuKernels, ManyQueryAttentionMatchesDoublePrecision) {
    struct Case {
        int64_t batch, heads, q_len, k_len, dh;
        bool masked;
        cpu::KvRows rows;
    };
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        EXPECT_TRUE(cpu::attention_tiles_supported(64));
    }
    EXPECT_FALSE(cpu::attention_tiles_supported(20));
    for (const Case& c : std::vector<Case>{{1, 2, 300, 300, 64, false, cpu::KvRows::per_batch_row},
                                           {1, 3, 37, 190, 64, true, cpu::KvRows::per_batch_row},
                                           {2, 2, 7, 1500, 64, false, cpu::KvRows::shared},
                                           {2, 1, 41, 33, 32, true, cpu::KvRows::per_batch_row},
                                           {1, 2, 5, 7, 16, true, cpu::KvRows::per_batch_row},
                                           {1, 2, 9, 50, 20, true, cpu::KvRows::per_batch_row}}) {
        const int64_t kv_slices = c.rows == cpu::KvRows::shared ? c.heads : c.batch * c.heads;
        auto q = random_values(size_t(c.batch * c.heads * c.q_len * c.dh), 21, 2.0F);
        auto k = random_values(size_t(kv_slices * c.k_len * c.dh), 22, 2.0F);
        auto v = random_values(size_t(kv_slices * c.k_len * c.dh), 23);
        const std::vector<uint16_t> k16 = round_to_half(k);
        const std::vector<uint16_t> v16 = round_to_half(v);
        // A prefill's causal mask (query i sees keys up to i + K - Q); row 0 sees nothing.
        std::vector<uint8_t> mask(size_t(c.q_len * c.k_len), 1);
        if (c.masked) {
            for (int64_t i = 0; i < c.q_len; ++i) {
                for (int64_t j = 0; j < c.k_len; ++j) {
                    const bool visible = i > 0 && j <= i + c.k_len - c.q_len;
                    mask[size_t(i * c.k_len + j)] = visible ? 1 : 0;
                }
            }
        }
        const uint8_t* m = c.masked ? mask.data() : nullptr;
        const float scale = 1.0F / std::sqrt(float(c.dh));
        std::vector<float> got(q.size()), tiles(q.size()), half(q.size());
        cpu::attention(q.data(), k.data(), v.data(), m, got.data(), c.batch, c.heads, c.q_len,
                       c.k_len, c.dh, scale, c.rows);
        cpu::attention_f16kv(q.data(), k16.data(), v16.data(), m, half.data(), c.batch, c.heads,
                             c.q_len, c.k_len, c.dh, scale, c.rows);
        const bool tiled = cpu::attention_tiles_supported(c.dh);
        if (tiled) {
            cpu::attention_tiles(q.data(), k.data(), v.data(), m, tiles.data(), c.batch, c.heads,
                                 c.q_len, c.k_len, c.dh, scale, c.rows == cpu::KvRows::shared);
        }
        const std::string where = "batch " + std::to_string(c.batch) + " heads " +
                                  std::to_string(c.heads) + " q_len " + std::to_string(c.q_len) +
                                  " k_len " + std::to_string(c.k_len) + " dh " +
                                  std::to_string(c.dh);
        int64_t zero_rows = 0;
        for (int64_t bh = 0; bh < c.batch * c.heads; ++bh) {
            const int64_t kv = (c.rows == cpu::KvRows::shared ? bh % c.heads : bh) * c.k_len * c.dh;
            for (int64_t i = 0; i < c.q_len; ++i) {
                std::vector<double> p(size_t(c.k_len), 0.0);
                double max = -INFINITY, sum = 0.0;
                for (int64_t j = 0; j < c.k_len; ++j) {
                    if (m != nullptr && m[i * c.k_len + j] == 0) continue;
                    double s = 0;
                    for (int64_t d = 0; d < c.dh; ++d) {
                        s += double(q[size_t((bh * c.q_len + i) * c.dh + d)]) *
                             double(k[size_t(kv + j * c.dh + d)]);
                    }
                    p[size_t(j)] = s * double(scale);
                    max = std::max(max, p[size_t(j)]);
                }
                for (int64_t j = 0; j < c.k_len; ++j) {
                    const bool visible = m == nullptr || m[i * c.k_len + j] != 0;
                    p[size_t(j)] = visible ? std::exp(p[size_t(j)] - max) : 0.0;
                    sum += p[size_t(j)];
                }
                if (sum == 0.0) ++zero_rows;
                for (int64_t d = 0; d < c.dh; ++d) {
                    double want = 0;
                    for (int64_t j = 0; j < c.k_len; ++j) {
                        if (sum > 0)
                            want += p[size_t(j)] / sum * double(v[size_t(kv + j * c.dh + d)]);
                    }
                    const size_t at = size_t((bh * c.q_len + i) * c.dh + d);
                    EXPECT_NEAR(got[at], want, 4e-6 * (1.0 + std::fabs(want)))
                        << where << " head " << bh << " row " << i << " dim " << d;
                    if (tiled) {
                        EXPECT_EQ(tiles[at], got[at]) << where << " value " << at;
                    }
                    EXPECT_EQ(half[at], got[at]) << where << " value " << at;
                }
            }
        }
        // Rows that see no key (row 0, and rows before the first key when Q > K) weigh nothing.
        int64_t blind_rows = 0;
        for (int64_t i = 0; m != nullptr && i < c.q_len; ++i) {
            blind_rows += std::none_of(m + i * c.k_len, m + (i + 1) * c.k_len,
                                       [](uint8_t visible) { return visible != 0; });
        }
        EXPECT_EQ(zero_rows, c.batch * c.heads * blind_rows) << where;
        EXPECT_EQ(blind_rows > 0, c.masked) << where;
    }
}

// The decoder step's attention over f16 keys and values (read directly, four keys at a time,
// values accumulated in registers for head sizes of 8..64 in steps of 8, plain loops otherwise)
// against the f32 path over the same values widened: Whisper's head size 64 over the audio's
// 1500 positions, odd lengths and sizes, masked holes and whole masked blocks, beam rows sharing
// the cross caches.
TEST(CpuKernels, HalfCacheAttentionEqualsTheF32Attention) {
    struct Case {
        int64_t batch, heads, k_len, dh;
        bool masked;
        cpu::KvRows rows;
    };
    for (const Case& c : std::vector<Case>{{1, 6, 1500, 64, false, cpu::KvRows::per_batch_row},
                                           {3, 2, 1500, 64, false, cpu::KvRows::shared},
                                           {2, 3, 201, 64, true, cpu::KvRows::per_batch_row},
                                           {1, 2, 7, 64, true, cpu::KvRows::per_batch_row},
                                           {2, 2, 130, 24, true, cpu::KvRows::per_batch_row},
                                           {1, 3, 99, 20, false, cpu::KvRows::per_batch_row},
                                           {1, 1, 66, 72, true, cpu::KvRows::per_batch_row}}) {
        const int64_t kv_slices = c.rows == cpu::KvRows::shared ? c.heads : c.batch * c.heads;
        auto q = random_values(size_t(c.batch * c.heads * c.dh), 11, 2.0F);
        auto k = random_values(size_t(kv_slices * c.k_len * c.dh), 12, 2.0F);
        auto v = random_values(size_t(kv_slices * c.k_len * c.dh), 13);
        const std::vector<uint16_t> k16 = round_to_half(k);
        const std::vector<uint16_t> v16 = round_to_half(v);
        std::vector<uint8_t> mask(size_t(c.k_len), 1);
        if (c.masked) {
            // A hole, the first block of 64 keys hidden where there is one, nothing past 5/6.
            mask[size_t(c.k_len / 3)] = 0;
            if (c.k_len > 128) std::fill(mask.begin(), mask.begin() + 64, uint8_t{0});
            std::fill(mask.begin() + c.k_len * 5 / 6 + 1, mask.end(), uint8_t{0});
        }
        const uint8_t* m = c.masked ? mask.data() : nullptr;
        const float scale = 1.0F / std::sqrt(float(c.dh));
        std::vector<float> want(q.size()), got(q.size());
        cpu::attention(q.data(), k.data(), v.data(), m, want.data(), c.batch, c.heads, 1, c.k_len,
                       c.dh, scale, c.rows);
        cpu::attention_f16kv(q.data(), k16.data(), v16.data(), m, got.data(), c.batch, c.heads, 1,
                             c.k_len, c.dh, scale, c.rows);
        double length = 0.0;
        for (size_t i = 0; i < got.size(); ++i) {
            // The two paths sum the scores' products and the weighted values in different orders
            // (and the compiler's vectorization of the f32 loops differs between builds): 2e-6
            // held at -O3, the sanitizer builds' -O1 needed 2.6e-6.
            EXPECT_NEAR(got[i], want[i], 4e-6F * (1.0F + std::fabs(want[i])))
                << "batch " << c.batch << " heads " << c.heads << " k_len " << c.k_len << " dh "
                << c.dh << " value " << i;
            length += double(want[i]) * double(want[i]);
        }
        EXPECT_GT(length, 1e-3);  // the output is not all zeros
    }
}

// A decoder step's attention runs in blocks of kKeyBlock keys per task and merges the blocks'
// softmax parts: lengths around a block's (1, one short, one exactly, one over), the self cache
// (448 slots, visible up to position 200: its last blocks are not read), the audio's 1500
// positions shared by a beam's rows, a masked block between visible ones, a row that sees
// nothing, scores spread so far that a block's weight underflows, and head sizes the f16 reads
// serve in registers (64) and in plain loops (20). f32 and f16 caches hold the same values
// (rounded to f16), so both must match double precision; a head's output must not depend on how
// many heads the call has (the pool splits the tasks differently).
TEST(CpuKernels, OneQueryAttentionInBlocksMatchesDoublePrecision) {
    struct Case {
        int64_t batch, heads, k_len, dh;
        enum class Mask { none, prefix, middle_block, nothing } mask;
        float spread;
        cpu::KvRows rows;
    };
    using M = Case::Mask;
    constexpr int64_t kBlock = cpu::kKeyBlock;
    for (const Case& c :
         std::vector<Case>{{1, 2, 1, 64, M::none, 2.0F, cpu::KvRows::per_batch_row},
                           {1, 3, kBlock - 1, 64, M::none, 2.0F, cpu::KvRows::per_batch_row},
                           {2, 2, kBlock, 64, M::prefix, 2.0F, cpu::KvRows::per_batch_row},
                           {1, 3, kBlock + 1, 64, M::none, 2.0F, cpu::KvRows::per_batch_row},
                           {1, 6, 448, 64, M::prefix, 2.0F, cpu::KvRows::per_batch_row},
                           {3, 6, 1500, 64, M::none, 2.0F, cpu::KvRows::shared},
                           {1, 4, 1500, 64, M::middle_block, 2.0F, cpu::KvRows::per_batch_row},
                           {2, 2, 300, 64, M::nothing, 2.0F, cpu::KvRows::per_batch_row},
                           {1, 2, 1500, 64, M::none, 12.0F, cpu::KvRows::per_batch_row},
                           {2, 3, 333, 20, M::middle_block, 2.0F, cpu::KvRows::per_batch_row}}) {
        const int64_t kv_slices = c.rows == cpu::KvRows::shared ? c.heads : c.batch * c.heads;
        auto q = random_values(size_t(c.batch * c.heads * c.dh), 41, c.spread);
        auto k = random_values(size_t(kv_slices * c.k_len * c.dh), 42, 2.0F);
        auto v = random_values(size_t(kv_slices * c.k_len * c.dh), 43);
        const std::vector<uint16_t> k16 = round_to_half(k);
        const std::vector<uint16_t> v16 = round_to_half(v);
        std::vector<uint8_t> mask(size_t(c.k_len), 1);
        if (c.mask == M::prefix)
            std::fill(mask.begin() + std::min<int64_t>(201, c.k_len - 1), mask.end(), 0);
        if (c.mask == M::middle_block) {
            std::fill(mask.begin() + kBlock, mask.begin() + 2 * kBlock, 0);
            mask[5] = 0;
        }
        if (c.mask == M::nothing) std::fill(mask.begin(), mask.end(), 0);
        const uint8_t* m = c.mask == M::none ? nullptr : mask.data();
        const float scale = 1.0F / std::sqrt(float(c.dh));
        const bool shared = c.rows == cpu::KvRows::shared;
        std::vector<float> got(q.size()), half(q.size());
        cpu::attention(q.data(), k.data(), v.data(), m, got.data(), c.batch, c.heads, 1, c.k_len,
                       c.dh, scale, c.rows);
        cpu::attention_one_query_f16(q.data(), k16.data(), v16.data(), m, half.data(), c.batch,
                                     c.heads, c.k_len, c.dh, scale, shared);
        const std::string where = "batch " + std::to_string(c.batch) + " heads " +
                                  std::to_string(c.heads) + " k_len " + std::to_string(c.k_len) +
                                  " dh " + std::to_string(c.dh);
        double length = 0.0;
        for (int64_t bh = 0; bh < c.batch * c.heads; ++bh) {
            const int64_t kv = (shared ? bh % c.heads : bh) * c.k_len * c.dh;
            std::vector<double> p(size_t(c.k_len), 0.0);
            double max = -INFINITY, sum = 0.0;
            for (int64_t j = 0; j < c.k_len; ++j) {
                if (m != nullptr && m[j] == 0) continue;
                double s = 0;
                for (int64_t d = 0; d < c.dh; ++d) {
                    s += double(q[size_t(bh * c.dh + d)]) * double(k[size_t(kv + j * c.dh + d)]);
                }
                p[size_t(j)] = s * double(scale);
                max = std::max(max, p[size_t(j)]);
            }
            for (int64_t j = 0; j < c.k_len; ++j) {
                const bool visible = m == nullptr || m[j] != 0;
                p[size_t(j)] = visible ? std::exp(p[size_t(j)] - max) : 0.0;
                sum += p[size_t(j)];
            }
            for (int64_t d = 0; d < c.dh; ++d) {
                double want = 0;
                for (int64_t j = 0; j < c.k_len && sum > 0; ++j) {
                    want += p[size_t(j)] / sum * double(v[size_t(kv + j * c.dh + d)]);
                }
                const size_t at = size_t(bh * c.dh + d);
                EXPECT_NEAR(got[at], want, 4e-6 * (1.0 + std::fabs(want)))
                    << where << " head " << bh << " dim " << d;
                EXPECT_NEAR(half[at], want, 4e-6 * (1.0 + std::fabs(want)))
                    << where << " head " << bh << " dim " << d << " (f16 caches)";
                length += want * want;
            }
            // The same head alone in its call: the pool splits its blocks differently.
            if (bh != c.batch * c.heads - 1 || shared) continue;
            std::vector<float> alone(size_t(c.dh)), alone_half(size_t(c.dh));
            cpu::attention_one_query(q.data() + bh * c.dh, k.data() + kv, v.data() + kv, m,
                                     alone.data(), 1, 1, c.k_len, c.dh, scale, false);
            cpu::attention_one_query_f16(q.data() + bh * c.dh, k16.data() + kv, v16.data() + kv, m,
                                         alone_half.data(), 1, 1, c.k_len, c.dh, scale, false);
            for (int64_t d = 0; d < c.dh; ++d) {
                EXPECT_EQ(alone[size_t(d)], got[size_t(bh * c.dh + d)]) << where << " dim " << d;
                EXPECT_EQ(alone_half[size_t(d)], half[size_t(bh * c.dh + d)])
                    << where << " dim " << d;
            }
        }
        EXPECT_EQ(length == 0.0, c.mask == M::nothing) << where;
        if (c.mask == M::nothing) {
            EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](float x) { return x == 0.0F; }));
            EXPECT_TRUE(std::all_of(half.begin(), half.end(), [](float x) { return x == 0.0F; }));
        }
    }
}

TEST(CpuKernels, HalfWeightProductEqualsTheF32Product) {
    // One row (four weight rows at a time), a few rows (GEMV per row), many rows (f16 panels
    // widened for sgemm; n 1500 at k 385 spans several panels); multiples of the vector width
    // and tails.
    for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{{1, 16, 301},
                                                                     {1, 385, 300},
                                                                     {2, 16, 300},
                                                                     {2, 37, 300},
                                                                     {2, 64, 300},
                                                                     {2, 385, 300},
                                                                     {5, 64, 77},
                                                                     {20, 37, 300},
                                                                     {20, 385, 1500}}) {
        auto x = random_values(size_t(m * k), 4);
        auto w = random_values(size_t(n * k), 5, 0.1F);
        auto bias = random_values(size_t(n), 6);
        std::vector<uint16_t> w16(w.size());
        for (size_t i = 0; i < w.size(); ++i) {
            w16[i] = earshot::base::f32_to_f16(w[i]);
            w[i] = earshot::base::f16_to_f32(w16[i]);  // both sides see the same values
        }
        std::vector<float> want(size_t(m * n)), got(size_t(m * n));
        cpu::linear(x.data(), w.data(), bias.data(), want.data(), m, k, n);
        cpu::linear_f16(x.data(), w16.data(), bias.data(), got.data(), m, k, n);
        for (size_t i = 0; i < got.size(); ++i) {
            EXPECT_NEAR(got[i], want[i], 1e-5F * (1.0F + std::fabs(want[i])))
                << "m " << m << " k " << k << " n " << n;
        }
    }
}

// The pool splits a one-row product's rows over its threads; each row's value must be the one a
// single thread computing every row gets (rows blocked by four from the first, the last few
// alone), whatever the split: the vocabulary head's 51865 rows do not divide evenly.
TEST(CpuKernels, PooledHalfWeightProductEqualsTheOneThreadProduct) {
    for (const auto& [k, n] : std::vector<std::array<int64_t, 2>>{{384, 51865}, {72, 1203}}) {
        auto x = random_values(size_t(k), 31);
        auto w = random_values(size_t(n * k), 32, 0.1F);
        std::vector<uint16_t> w16(w.size());
        for (size_t i = 0; i < w.size(); ++i) w16[i] = earshot::base::f32_to_f16(w[i]);
        std::vector<float> pooled(static_cast<size_t>(n)), alone(static_cast<size_t>(n));
        cpu::linear_f16(x.data(), w16.data(), nullptr, pooled.data(), 1, k, n);
        cpu::dot_rows_f16(x.data(), w16.data(), n, k, alone.data());
        int64_t different = 0;
        for (size_t j = 0; j < pooled.size(); ++j) different += pooled[j] != alone[j] ? 1 : 0;
        EXPECT_EQ(different, 0) << "k " << k << " n " << n;
    }
}

TEST(CpuKernels, EachRowOfABeamProductEqualsItsOneRowProduct) {
    // A beam's rows go through the one-row kernel, four weight rows at a time: each row of the
    // product is the one-row product of that row, value for value (tails of rows and columns).
    for (const auto& [m, k, n] :
         std::vector<std::array<int64_t, 3>>{{5, 392, 1203}, {3, 37, 301}}) {
        auto x = random_values(size_t(m * k), 9);
        auto w = random_values(size_t(n * k), 10, 0.1F);
        auto bias = random_values(size_t(n), 14);
        std::vector<uint16_t> w16(w.size());
        for (size_t i = 0; i < w.size(); ++i) w16[i] = earshot::base::f32_to_f16(w[i]);
        std::vector<float> beam(static_cast<size_t>(m * n)), one(static_cast<size_t>(n));
        cpu::linear_f16(x.data(), w16.data(), bias.data(), beam.data(), m, k, n);
        for (int64_t row = 0; row < m; ++row) {
            cpu::linear_f16(x.data() + row * k, w16.data(), bias.data(), one.data(), 1, k, n);
            EXPECT_TRUE(std::equal(one.begin(), one.end(), beam.begin() + row * n))
                << "m " << m << " k " << k << " n " << n << " row " << row;
        }
    }
}

TEST(CpuKernels, FewRowF32ProductMatchesDoublePrecisionAndEachRowItsOneRowProduct) {
    // f32 weights, one row to a beam's eight (the prefetching row loop), then GEMM (nine): each
    // value within f32 rounding of the double-precision product, each few-row product's rows equal
    // to their one-row products, and the streamed reading (a matrix at the streaming size) equal
    // to the cached one.
    for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{
             {1, 384, 301}, {5, 392, 1203}, {3, 37, 301}, {8, 16, 77}, {9, 64, 50}}) {
        auto x = random_values(size_t(m * k), 15);
        auto w = random_values(size_t(n * k), 16, 0.1F);
        auto bias = random_values(size_t(n), 17);
        std::vector<float> got(static_cast<size_t>(m * n)), one(static_cast<size_t>(n));
        cpu::linear(x.data(), w.data(), bias.data(), got.data(), m, k, n);
        for (int64_t row = 0; row < m; ++row) {
            for (int64_t j = 0; j < n; ++j) {
                double want = bias[size_t(j)];
                for (int64_t i = 0; i < k; ++i) {
                    want += double(x[size_t(row * k + i)]) * double(w[size_t(j * k + i)]);
                }
                EXPECT_NEAR(got[size_t(row * n + j)], want, 2e-5 * (1.0 + std::fabs(want)))
                    << "m " << m << " k " << k << " n " << n;
            }
            if (m > cpu::kHalfGemvRows) continue;
            cpu::linear(x.data() + row * k, w.data(), bias.data(), one.data(), 1, k, n);
            EXPECT_TRUE(std::equal(one.begin(), one.end(), got.begin() + row * n))
                << "m " << m << " k " << k << " n " << n << " row " << row;
        }
        if (m > cpu::kHalfGemvRows) continue;
        cpu::set_streamed_matrix_bytes(n * k * 4);
        std::vector<float> streamed(got.size());
        cpu::linear(x.data(), w.data(), bias.data(), streamed.data(), m, k, n);
        cpu::set_streamed_matrix_bytes(-1);
        EXPECT_EQ(streamed, got) << "m " << m << " k " << k << " n " << n;
    }
}

TEST(CpuKernels, StreamedHalfWeightProductEqualsTheCachedOne) {
    // A matrix at or over the streaming size is read with non-temporal prefetches; the
    // arithmetic is the same, so every value is too (tails of rows and of columns included).
    const int64_t m = 1, k = 392, n = 1203;
    auto x = random_values(size_t(m * k), 7);
    auto w = random_values(size_t(n * k), 8, 0.1F);
    std::vector<uint16_t> w16(w.size());
    for (size_t i = 0; i < w.size(); ++i) w16[i] = earshot::base::f32_to_f16(w[i]);
    const int64_t matrix_bytes = n * k * 2;
    ASSERT_GT(cpu::streamed_matrix_bytes(), 0);
    std::vector<float> cached(static_cast<size_t>(n)), streamed(static_cast<size_t>(n));
    cpu::set_streamed_matrix_bytes(matrix_bytes + 1);
    cpu::linear_f16(x.data(), w16.data(), nullptr, cached.data(), m, k, n);
    cpu::set_streamed_matrix_bytes(matrix_bytes);
    EXPECT_EQ(cpu::streamed_matrix_bytes(), matrix_bytes);
    cpu::linear_f16(x.data(), w16.data(), nullptr, streamed.data(), m, k, n);
    cpu::set_streamed_matrix_bytes(-1);
    EXPECT_GT(cpu::streamed_matrix_bytes(), 0);
    EXPECT_NE(cpu::streamed_matrix_bytes(), matrix_bytes);
    EXPECT_EQ(streamed, cached);
    double length = 0.0;
    for (float v : cached) length += double(v) * double(v);
    EXPECT_GT(length, 1.0);  // the product is not all zeros
}

TEST(CpuKernels, Conv1dPadsWithZerosAndStrides) {
    // One channel in and out, kernel [1, 2, 3] on a ramp 1..5, stride 2, padding 1:
    // outputs at t = 0, 1, 2 read x[-1..1], x[1..3], x[3..5].
    const std::vector<float> x{1, 2, 3, 4, 5};
    const std::vector<float> w{1, 2, 3};
    const std::vector<float> b{0.5F};
    std::vector<float> y(3);
    std::vector<float> scratch;
    cpu::conv1d(x.data(), w.data(), b.data(), y.data(), 1, 5, 1, 1, 3, 2, 1, scratch);
    EXPECT_FLOAT_EQ(y[0], 0 * 1 + 1 * 2 + 2 * 3 + 0.5F);
    EXPECT_FLOAT_EQ(y[1], 2 * 1 + 3 * 2 + 4 * 3 + 0.5F);
    EXPECT_FLOAT_EQ(y[2], 4 * 1 + 5 * 2 + 0 * 3 + 0.5F);
}

}  // namespace
