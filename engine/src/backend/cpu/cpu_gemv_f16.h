// Matrix products against weights kept in IEEE half precision (the checkpoint's f16 bits, never a
// full f32 copy): few-row products (decoder steps, beams) stream the f16 rows once, read with
// F16C where the CPU has it (checked at run time); many-row products (the encoder, prefill)
// widen one panel of rows at a time to f32 and hand it to OpenBLAS's sgemm. Arithmetic is f32.
// The few-row products of f32 weights (f32 checkpoints) share the row loop: one memory-bound
// kernel family for every decoder step.
#pragma once

#include <cstdint>

namespace earshot::backend::cpu {

// Products with at most this many rows of x read the f16 weights directly (memory-bound GEMV);
// larger ones widen panels for sgemm.
inline constexpr int64_t kHalfGemvRows = 8;

// One-row products read a weight matrix of at least this many bytes with non-temporal
// prefetches. Such a matrix (the vocabulary head: 40 MB at tiny's shape) cannot stay in the
// last-level cache between decoder steps, and streaming it through the cache would evict the
// layers' weights and caches, which can. Default: half the L3 that one core shares (sysfs),
// else 8 MiB. set_streamed_matrix_bytes (benchmarks and tests) sets it; a negative value restores
// the default. INT64_MAX turns streaming off.
int64_t streamed_matrix_bytes();
void set_streamed_matrix_bytes(int64_t bytes);

// y [m, n] = x [m, k] * w^T (w [n, k] f16 bits) (+ bias [n] when not null).
void linear_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                int64_t k, int64_t n);

// y [m, n] = x [m, k] * w^T (w [n, k] f32) (+ bias [n] when not null) for m <= kHalfGemvRows:
// the same row loop, prefetching and streaming as linear_f16's few-row products, on f32 rows.
void gemv_f32(const float* x, const float* w, const float* bias, float* y, int64_t m, int64_t k,
              int64_t n);

// On the calling thread: y [rows] = x [k] * w^T (w [rows, k] f16 bits): attention's scores
// against f16 keys.
void dot_rows_f16(const float* x, const uint16_t* w, int64_t rows, int64_t k, float* y);

// On the calling thread: y [k] += p[j] * v[j] over the rows j of v [rows, k] (f16 bits) with
// p[j] != 0, in row order: attention's weighted sum of f16 values.
void accumulate_rows_f16(const float* p, const uint16_t* v, int64_t rows, int64_t k, float* y);

// out [n] = the f16 values bits [n] widened exactly.
void widen_f16(const uint16_t* bits, float* out, int64_t n);

// ids [n] into table [V, H] (f16 bits) -> y [n, H]; an id outside [0, V) throws
// std::out_of_range.
void embedding_f16(const int32_t* ids, const uint16_t* table, float* y, int64_t n, int64_t vocab,
                   int64_t width);

}  // namespace earshot::backend::cpu
