// Matrix products against weights kept in IEEE half precision (the checkpoint's f16 bits, never a
// full f32 copy): few-row products (decoder steps, beams) stream the f16 rows once, read with
// F16C where the CPU has it (checked at run time); many-row products (the encoder, prefill)
// widen one panel of rows at a time to f32 and hand it to OpenBLAS's sgemm. Arithmetic is f32.
#pragma once

#include <cstdint>

namespace earshot::backend::cpu {

// Products with at most this many rows of x read the f16 weights directly (memory-bound GEMV);
// larger ones widen panels for sgemm.
inline constexpr int64_t kHalfGemvRows = 8;

// y [m, n] = x [m, k] * w^T (w [n, k] f16 bits) (+ bias [n] when not null).
void linear_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                int64_t k, int64_t n);

// out [n] = the f16 values bits [n] widened exactly.
void widen_f16(const uint16_t* bits, float* out, int64_t n);

// ids [n] into table [V, H] (f16 bits) -> y [n, H]; an id outside [0, V) throws
// std::out_of_range.
void embedding_f16(const int32_t* ids, const uint16_t* table, float* y, int64_t n, int64_t vocab,
                   int64_t width);

}  // namespace earshot::backend::cpu
