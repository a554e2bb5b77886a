// Matrix-vector products against weights kept in IEEE half precision: the decoder's single-token
// steps are memory-bound, and f16 weights halve the bytes they stream. Arithmetic stays f32.
#pragma once

#include <cstdint>

namespace earshot::backend::cpu {

// y [m, n] = x [m, k] * w^T (w [n, k] f16 bits) (+ bias [n] when not null); meant for small m.
void linear_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                int64_t k, int64_t n);

}  // namespace earshot::backend::cpu
