// Token selection from one row of logits: log-softmax, argmax, temperature sampling (§5.3).
#include "earshot/engine/decoding/token_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace earshot::decoding {

std::vector<double> log_softmax(std::span<const float> logits) {
    const double minus_inf = -std::numeric_limits<double>::infinity();
    double peak = minus_inf;
    for (float v : logits) peak = std::max(peak, double(v));
    std::vector<double> out(logits.size(), std::numeric_limits<double>::quiet_NaN());
    if (peak == minus_inf) return out;
    double sum = 0.0;
    for (float v : logits) sum += std::exp(double(v) - peak);
    const double log_norm = peak + std::log(sum);
    for (size_t i = 0; i < logits.size(); ++i) out[i] = double(logits[i]) - log_norm;
    return out;
}

int32_t argmax(std::span<const float> logits) {
    if (logits.empty()) throw std::invalid_argument("argmax of an empty row");
    const auto it = std::max_element(logits.begin(), logits.end());
    return static_cast<int32_t>(it - logits.begin());
}

int32_t sample_token(std::span<const float> logits, double temperature, std::mt19937_64& rng) {
    if (!(temperature > 0.0)) throw std::invalid_argument("sample_token needs temperature > 0");
    const double peak = double(logits[static_cast<size_t>(argmax(logits))]);
    if (peak == -std::numeric_limits<double>::infinity()) {
        throw std::logic_error("sample_token: every token is suppressed");
    }
    std::vector<double> weights(logits.size());
    double total = 0.0;
    for (size_t i = 0; i < logits.size(); ++i) {
        weights[i] = std::exp((double(logits[i]) - peak) / temperature);
        total += weights[i];
    }
    const double u = double(rng() >> 11) * 0x1.0p-53;  // [0, 1)
    const double target = u * total;
    double cumulative = 0.0;
    int32_t last_allowed = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
        if (weights[i] <= 0.0) continue;
        cumulative += weights[i];
        last_allowed = static_cast<int32_t>(i);
        if (target < cumulative) return last_allowed;
    }
    return last_allowed;  // rounding left target at the very end
}

}  // namespace earshot::decoding
