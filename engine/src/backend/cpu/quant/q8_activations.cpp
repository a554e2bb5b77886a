// quantize_q8_activations and quantize_q8k_activations: one row of activations to Q8Blocks or
// Q8KBlocks, on the calling thread.
#include "backend/cpu/quant/q8_activations.h"

#include <cmath>

namespace earshot::backend::cpu {

void quantize_q8_activations(const float* x, int64_t k, Q8Block* out) {
    for (int64_t b = 0; b < k / kQ8BlockValues; ++b) {
        const float* values = x + b * kQ8BlockValues;  // [32]
        float amax = 0.0F;
        for (int64_t j = 0; j < kQ8BlockValues; ++j) {
            const float a = std::fabs(values[j]);
            amax = a > amax ? a : amax;
        }
        Q8Block& block = out[b];
        block.d = amax / 127.0F;
        const float inverse = amax > 0.0F ? 127.0F / amax : 0.0F;
        int32_t total = 0;
        for (int64_t j = 0; j < kQ8BlockValues; ++j) {
            // |x / d| <= 127, so the level fits an int8 (nearbyint: ties to even).
            const auto q = static_cast<int32_t>(std::nearbyint(values[j] * inverse));
            block.qs[j] = static_cast<int8_t>(q);
            total += q;
        }
        block.sum = block.d * static_cast<float>(total);
    }
}

void quantize_q8k_activations(const float* x, int64_t k, Q8KBlock* out) {
    for (int64_t b = 0; b < k / kQ8KBlockValues; ++b) {
        const float* values = x + b * kQ8KBlockValues;  // [256]
        float amax = 0.0F;
        for (int64_t j = 0; j < kQ8KBlockValues; ++j) {
            const float a = std::fabs(values[j]);
            amax = a > amax ? a : amax;
        }
        Q8KBlock& block = out[b];
        block.d = amax / 127.0F;
        const float inverse = amax > 0.0F ? 127.0F / amax : 0.0F;
        for (int i = 0; i < 16; ++i) {
            int32_t total = 0;
            for (int l = 0; l < 16; ++l) {
                const auto q = static_cast<int32_t>(std::nearbyint(values[16 * i + l] * inverse));
                block.qs[16 * i + l] = static_cast<int8_t>(q);
                total += q;
            }
            block.bsums[i] = static_cast<int16_t>(total);
        }
    }
}

}  // namespace earshot::backend::cpu
