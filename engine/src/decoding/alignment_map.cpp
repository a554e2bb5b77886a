// The alignment map: cross-attention of the alignment heads turned into openai's warp matrix
// (timing.py's find_alignment), its warp path and the positions where each row starts.
#include "earshot/engine/decoding/alignment_map.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace earshot::decoding {

AlignmentMap alignment_map(const backend::HostTensor& weights, size_t sot_length, int64_t n_text,
                           int64_t num_frames) {
    if (weights.shape().size() != 4 || weights.dim(0) != 1) {
        throw std::invalid_argument("alignment: weights must be [1, heads, S, Audio], got " +
                                    weights.shape_str());
    }
    const int64_t heads = weights.dim(1);
    const int64_t s_len = weights.dim(2);
    const int64_t audio = weights.dim(3);
    if (s_len != static_cast<int64_t>(sot_length) + n_text + 1 || sot_length < 1) {
        throw std::invalid_argument("alignment: weights cover " + std::to_string(s_len) +
                                    " tokens, not the SOT sequence + text + EOT");
    }
    const int64_t t_len = std::clamp<int64_t>(num_frames / 2, 1, audio);

    // Per head [S, T]: renormalized over the kept positions, standardized over the tokens,
    // median filtered along time; summed over heads into matrix [S, T].
    std::vector<float> matrix(static_cast<size_t>(s_len * t_len), 0.0F);
    std::vector<float> head(static_cast<size_t>(s_len * t_len));
    const std::span<const float> all = weights.f32_values();
    for (int64_t h = 0; h < heads; ++h) {
        for (int64_t s = 0; s < s_len; ++s) {
            const float* row = all.data() + (h * s_len + s) * audio;
            double sum = 0.0;
            for (int64_t t = 0; t < t_len; ++t) sum += static_cast<double>(row[t]);
            const double scale = sum > 0.0 ? 1.0 / sum : 0.0;
            for (int64_t t = 0; t < t_len; ++t) {
                head[static_cast<size_t>(s * t_len + t)] =
                    static_cast<float>(static_cast<double>(row[t]) * scale);
            }
        }
        for (int64_t t = 0; t < t_len; ++t) {
            double mean = 0.0;
            for (int64_t s = 0; s < s_len; ++s) {
                mean += static_cast<double>(head[static_cast<size_t>(s * t_len + t)]);
            }
            mean /= static_cast<double>(s_len);
            double variance = 0.0;
            for (int64_t s = 0; s < s_len; ++s) {
                const double d =
                    static_cast<double>(head[static_cast<size_t>(s * t_len + t)]) - mean;
                variance += d * d;
            }
            const double std_dev = std::sqrt(variance / static_cast<double>(s_len));
            for (int64_t s = 0; s < s_len; ++s) {
                float& v = head[static_cast<size_t>(s * t_len + t)];
                v = std_dev > 0.0 ? static_cast<float>((static_cast<double>(v) - mean) / std_dev)
                                  : 0.0F;
            }
        }
        median_filter(head, s_len, t_len, kMedianFilterWidth);
        for (size_t k = 0; k < head.size(); ++k) matrix[k] += head[k];
    }
    // Rows from <|notimestamps|> to the last text token, averaged over heads; the warp runs on
    // their negative.
    AlignmentMap map;
    const int64_t first = static_cast<int64_t>(sot_length) - 1;
    map.rows = n_text + 1;
    map.positions = t_len;
    map.matrix.resize(static_cast<size_t>(map.rows * t_len));
    std::vector<float> cost(map.matrix.size());
    for (int64_t r = 0; r < map.rows; ++r) {
        for (int64_t t = 0; t < t_len; ++t) {
            const float value =
                matrix[static_cast<size_t>((first + r) * t_len + t)] / static_cast<float>(heads);
            map.matrix[static_cast<size_t>(r * t_len + t)] = value;
            cost[static_cast<size_t>(r * t_len + t)] = -value;
        }
    }
    map.path = dynamic_time_warp(cost, map.rows, t_len);
    for (size_t k = 0; k < map.path.rows.size(); ++k) {
        if (k == 0 || map.path.rows[k] != map.path.rows[k - 1]) {
            map.jump_positions.push_back(map.path.cols[k]);
        }
    }
    return map;
}

}  // namespace earshot::decoding
