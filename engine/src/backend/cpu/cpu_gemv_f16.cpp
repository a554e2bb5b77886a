// f16-weight products: F16C + FMA kernels on machines that have them (checked once at run time),
// an exact portable half-to-float conversion otherwise. GEMV rows are split over the thread pool;
// panel GEMMs use OpenBLAS's threads. The f32-weight few-row products use the same row loop.
#include "cpu_gemv_f16.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpu_threads.h"
#include "earshot/base/half_float.h"

namespace earshot::backend::cpu {

namespace {

// Bytes of f32 panel handed to one sgemm call: a few row blocks of OpenBLAS's packing, small
// enough to stay in L2/L3 while it is packed.
constexpr int64_t kPanelBytes = 2 << 20;
// Bytes a GEMV or attention kernel prefetches ahead of the row it reads, at least: about a DRAM
// miss's latency at the rate one core reads rows from L2.
constexpr uintptr_t kPrefetchBytes = 2048;
// Weights one claimed chunk of GEMV rows holds at least: claims stay rare, and a matrix of a
// few hundred KB (a 384 x 384 f16 projection: 288 KiB) still splits over 16 threads.
constexpr int64_t kGemvGrainBytes = 16 << 10;

// Rows per claimed chunk: whole blocks of the four-row kernel (so each row's arithmetic is the
// same however the rows are split over threads), at least kGemvGrainBytes of weights.
int64_t gemv_grain_rows(int64_t k, int64_t weight_bytes) {
    const int64_t row_bytes = std::max<int64_t>(k, 1) * weight_bytes;
    const int64_t rows = (kGemvGrainBytes + row_bytes - 1) / row_bytes;
    return (rows + 3) / 4 * 4;
}

// The L3 one core shares, in bytes, from sysfs (sysconf can report every L3 of the package
// together: 256 MiB for eight 32 MiB slices of an EPYC); 0 when unknown.
int64_t shared_l3_bytes() {
    for (int index = 0; index < 8; ++index) {
        const std::string dir =
            "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        std::ifstream level_file(dir + "level");
        int level = 0;
        if (!(level_file >> level)) break;
        if (level != 3) continue;
        std::ifstream size_file(dir + "size");
        int64_t size = 0;
        std::string unit;
        if (!(size_file >> size)) return 0;
        size_file >> unit;  // "32768K"
        if (!unit.empty() && unit[0] == 'K') return size << 10;
        if (!unit.empty() && unit[0] == 'M') return size << 20;
        return size;
    }
    return 0;
}

// Half the L3 one core shares, else 8 MiB when the system does not say.
int64_t default_streamed_matrix_bytes() {
    const int64_t l3_bytes = shared_l3_bytes();
    return l3_bytes > 0 ? l3_bytes / 2 : int64_t{8} << 20;
}

std::atomic<int64_t>& streamed_bytes_setting() {
    static std::atomic<int64_t> bytes{default_streamed_matrix_bytes()};
    return bytes;
}

// A weight as f32: f16 bits widened exactly, or an f32 value itself.
inline float weight_value(uint16_t bits) { return base::f16_to_f32(bits); }
inline float weight_value(float value) { return value; }

template <typename Weight>
float dot_portable(const float* x, const Weight* w, int64_t k) {
    float sum = 0.0F;
    for (int64_t i = 0; i < k; ++i) sum += x[i] * weight_value(w[i]);
    return sum;
}

void widen_portable(const uint16_t* bits, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = base::f16_to_f32(bits[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define EARSHOT_F16C __attribute__((target("avx2,fma,f16c")))

EARSHOT_F16C inline __m256 load8(const uint16_t* w) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
}

EARSHOT_F16C inline __m256 load8(const float* w) { return _mm256_loadu_ps(w); }

EARSHOT_F16C inline float sum8(__m256 v) {
    __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    half = _mm_add_ss(half, _mm_shuffle_ps(half, half, 1));
    return _mm_cvtss_f32(half);
}

template <typename Weight>
EARSHOT_F16C float dot_simd(const float* x, const Weight* w, int64_t k) {
    __m256 acc0 = _mm256_setzero_ps();
    __m256 acc1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), load8(w + i), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), load8(w + i + 8), acc1);
    }
    float sum = sum8(_mm256_add_ps(acc0, acc1));
    for (; i < k; ++i) sum += x[i] * weight_value(w[i]);
    return sum;
}

// y[0..4) = x . w[r] for the four rows r of w (row stride k, f16 bits or f32): x is loaded once
// per block and eight independent FMA chains keep the loads in flight. Every block prefetches the
// rows `ahead` bytes past its own (each iteration the lines of its share, so a block covers a
// block's worth): this machine's hardware prefetchers barely follow a GEMV's four streams, and
// without it a matrix out of L1 reads at a third of the rate. kStream: non-temporal prefetches,
// so a matrix read once per step passes through the caches without evicting what stays there
// between steps; otherwise into all levels. At the end of a range the prefetch touches rows past
// it; a prefetch never faults.
template <bool kStream, typename Weight>
EARSHOT_F16C void dot4_simd(const float* x, const Weight* w, int64_t k, uintptr_t ahead, float* y) {
    // Bytes of the four rows one iteration reads: 16 weights of each.
    constexpr uintptr_t kIterationBytes = 4 * 16 * sizeof(Weight);
    const Weight* w0 = w;
    const Weight* w1 = w + k;
    const Weight* w2 = w + 2 * k;
    const Weight* w3 = w + 3 * k;
    __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps();
    __m256 a1 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps();
    __m256 a3 = _mm256_setzero_ps(), b3 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        // An address, not a pointer into w: past the last rows it points at no object.
        const uintptr_t next =
            reinterpret_cast<uintptr_t>(w) + ahead + uintptr_t(i) / 16 * kIterationBytes;
        for (uintptr_t line = 0; line < kIterationBytes; line += 64) {
            if constexpr (kStream) {
                _mm_prefetch(reinterpret_cast<const char*>(next + line), _MM_HINT_NTA);
            } else {
                _mm_prefetch(reinterpret_cast<const char*>(next + line), _MM_HINT_T0);
            }
        }
        const __m256 xa = _mm256_loadu_ps(x + i);
        const __m256 xb = _mm256_loadu_ps(x + i + 8);
        a0 = _mm256_fmadd_ps(xa, load8(w0 + i), a0);
        b0 = _mm256_fmadd_ps(xb, load8(w0 + i + 8), b0);
        a1 = _mm256_fmadd_ps(xa, load8(w1 + i), a1);
        b1 = _mm256_fmadd_ps(xb, load8(w1 + i + 8), b1);
        a2 = _mm256_fmadd_ps(xa, load8(w2 + i), a2);
        b2 = _mm256_fmadd_ps(xb, load8(w2 + i + 8), b2);
        a3 = _mm256_fmadd_ps(xa, load8(w3 + i), a3);
        b3 = _mm256_fmadd_ps(xb, load8(w3 + i + 8), b3);
    }
    // Lane r of the result is the sum of row r's accumulators.
    const __m256 s01 = _mm256_hadd_ps(_mm256_add_ps(a0, b0), _mm256_add_ps(a1, b1));
    const __m256 s23 = _mm256_hadd_ps(_mm256_add_ps(a2, b2), _mm256_add_ps(a3, b3));
    const __m256 s = _mm256_hadd_ps(s01, s23);
    __m128 sums = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    _mm_storeu_ps(y, sums);
    for (; i < k; ++i) {
        y[0] += x[i] * weight_value(w0[i]);
        y[1] += x[i] * weight_value(w1[i]);
        y[2] += x[i] * weight_value(w2[i]);
        y[3] += x[i] * weight_value(w3[i]);
    }
}

// y[0, 8B) += p[j] * v[j] for the rows j of v (row stride 8B) with p[j] != 0, in row order: the
// B accumulators stay in registers, and the row kPrefetchBytes on is prefetched.
template <int kBlocks>
EARSHOT_F16C void accumulate_rows_f16c(const float* p, const uint16_t* v, int64_t rows, float* y) {
    constexpr int64_t k = 8 * kBlocks;
    __m256 acc[static_cast<size_t>(kBlocks)];
    for (int b = 0; b < kBlocks; ++b) acc[b] = _mm256_loadu_ps(y + 8 * b);
    for (int64_t j = 0; j < rows; ++j) {
        const uintptr_t next = reinterpret_cast<uintptr_t>(v + j * k) + kPrefetchBytes;
        for (uintptr_t line = 0; line < uintptr_t(2 * k); line += 64) {
            _mm_prefetch(reinterpret_cast<const char*>(next + line), _MM_HINT_T0);
        }
        if (p[j] == 0.0F) continue;  // masked cache slots
        const __m256 pj = _mm256_set1_ps(p[j]);
        for (int b = 0; b < kBlocks; ++b) {
            acc[b] = _mm256_fmadd_ps(pj, load8(v + j * k + 8 * b), acc[b]);
        }
    }
    for (int b = 0; b < kBlocks; ++b) _mm256_storeu_ps(y + 8 * b, acc[b]);
}

EARSHOT_F16C void widen_f16c(const uint16_t* bits, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, load8(bits + i));
    for (; i < n; ++i) out[i] = base::f16_to_f32(bits[i]);
}

bool has_f16c() {
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                  __builtin_cpu_supports("f16c");
    return supported;
}
#else
bool has_f16c() { return false; }
template <typename Weight>
float dot_simd(const float* x, const Weight* w, int64_t k) {
    return dot_portable(x, w, k);
}
template <bool kStream, typename Weight>
void dot4_simd(const float* x, const Weight* w, int64_t k, uintptr_t /*ahead*/, float* y) {
    for (int r = 0; r < 4; ++r) y[r] = dot_portable(x, w + r * k, k);
}
void widen_f16c(const uint16_t* bits, float* out, int64_t n) { widen_portable(bits, out, n); }
template <int kBlocks>
void accumulate_rows_f16c(const float* p, const uint16_t* v, int64_t rows, float* y) {
    for (int64_t j = 0; j < rows; ++j) {
        if (p[j] == 0.0F) continue;
        for (int64_t d = 0; d < 8 * kBlocks; ++d) {
            y[d] += p[j] * base::f16_to_f32(v[j * 8 * kBlocks + d]);
        }
    }
}
#endif

// How far ahead dot4_simd prefetches, in bytes: whole blocks of four rows, at least
// kPrefetchBytes (a short row's next block alone would arrive too late).
uintptr_t prefetch_ahead_bytes(int64_t k, uintptr_t weight_bytes) {
    const auto block = static_cast<uintptr_t>(4 * std::max<int64_t>(k, 1)) * weight_bytes;
    return block * ((kPrefetchBytes + block - 1) / block);
}

// Rows [begin, end) of y for every row of x; `stream`: prefetch w non-temporally. Each block of
// four weight rows is read from memory once, for the first row of x, and from L1 for the others
// (beam rows), so every row of x gets the same arithmetic as a single row.
template <typename Weight>
void gemv_rows(const float* x, const Weight* w, const float* bias, float* y, int64_t m, int64_t k,
               int64_t n, int64_t begin, int64_t end, bool stream) {
    if (has_f16c()) {
        int64_t j = begin;
        const uintptr_t ahead = prefetch_ahead_bytes(k, sizeof(Weight));
        for (; j + 4 <= end; j += 4) {
            for (int64_t row = 0; row < m; ++row) {
                if (stream) {
                    dot4_simd<true>(x + row * k, w + j * k, k, ahead, y + row * n + j);
                } else {
                    dot4_simd<false>(x + row * k, w + j * k, k, ahead, y + row * n + j);
                }
            }
        }
        for (; j < end; ++j) {
            for (int64_t row = 0; row < m; ++row) {
                y[row * n + j] = dot_simd(x + row * k, w + j * k, k);
            }
        }
    } else {
        for (int64_t j = begin; j < end; ++j) {
            for (int64_t row = 0; row < m; ++row) {
                y[row * n + j] = dot_portable(x + row * k, w + j * k, k);
            }
        }
    }
    if (bias == nullptr) return;
    for (int64_t row = 0; row < m; ++row) {
        for (int64_t j = begin; j < end; ++j) y[row * n + j] += bias[j];
    }
}

// The few-row product on the shared pool, its matrix streamed when it is at least
// streamed_matrix_bytes().
template <typename Weight>
void gemv(const float* x, const Weight* w, const float* bias, float* y, int64_t m, int64_t k,
          int64_t n) {
    const bool stream = n * k * int64_t{sizeof(Weight)} >= streamed_matrix_bytes();
    const int64_t grain = gemv_grain_rows(k, int64_t{sizeof(Weight)});
    ThreadPool::current().parallel_for(n, grain, [&](int64_t begin, int64_t end) {
        gemv_rows(x, w, bias, y, m, k, n, begin, end, stream);
    });
}

}  // namespace

void gemv_f32(const float* x, const float* w, const float* bias, float* y, int64_t m, int64_t k,
              int64_t n) {
    gemv(x, w, bias, y, m, k, n);
}

int64_t streamed_matrix_bytes() { return streamed_bytes_setting().load(std::memory_order_relaxed); }

void set_streamed_matrix_bytes(int64_t bytes) {
    streamed_bytes_setting().store(bytes < 0 ? default_streamed_matrix_bytes() : bytes,
                                   std::memory_order_relaxed);
}

void widen_f16(const uint16_t* bits, float* out, int64_t n) {
    if (has_f16c()) {
        widen_f16c(bits, out, n);
    } else {
        widen_portable(bits, out, n);
    }
}

void dot_rows_f16(const float* x, const uint16_t* w, int64_t rows, int64_t k, float* y) {
    gemv_rows(x, w, nullptr, y, 1, k, rows, 0, rows, false);
}

namespace {

// accumulate_rows_f16c for 1 .. 8 blocks of 8 values (head sizes 8 .. 64), by blocks - 1.
constexpr int kMaxAccumulatedBlocks = 8;
using AccumulateRows = void (*)(const float*, const uint16_t*, int64_t, float*);
template <size_t... kBlocksLess1>
constexpr std::array<AccumulateRows, sizeof...(kBlocksLess1)> accumulate_rows_table(
    std::index_sequence<kBlocksLess1...>) {
    return {&accumulate_rows_f16c<static_cast<int>(kBlocksLess1) + 1>...};
}
constexpr auto kAccumulateRows =
    accumulate_rows_table(std::make_index_sequence<kMaxAccumulatedBlocks>());

}  // namespace

void accumulate_rows_f16(const float* p, const uint16_t* v, int64_t rows, int64_t k, float* y) {
    if (has_f16c() && k % 8 == 0 && k >= 8 && k <= 8 * kMaxAccumulatedBlocks) {
        kAccumulateRows[static_cast<size_t>(k / 8 - 1)](p, v, rows, y);
        return;
    }
    for (int64_t j = 0; j < rows; ++j) {
        if (p[j] == 0.0F) continue;  // masked cache slots
        for (int64_t d = 0; d < k; ++d) y[d] += p[j] * base::f16_to_f32(v[j * k + d]);
    }
}

void linear_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                int64_t k, int64_t n) {
    if (m <= kHalfGemvRows) {
        gemv(x, w, bias, y, m, k, n);
        return;
    }
    // Panels of weight rows widened to f32, each multiplied by OpenBLAS: y[:, j0 .. j0 + rows).
    const int64_t panel_rows = std::min(n, std::max<int64_t>(16, kPanelBytes / (4 * k)));
    thread_local std::vector<float> panel;
    panel.resize(static_cast<size_t>(panel_rows * k));
    for (int64_t j0 = 0; j0 < n; j0 += panel_rows) {
        const int64_t rows = std::min(panel_rows, n - j0);
        widen_f16(w + j0 * k, panel.data(), rows * k);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(m),
                    static_cast<blasint>(rows), static_cast<blasint>(k), 1.0F, x,
                    static_cast<blasint>(k), panel.data(), static_cast<blasint>(k), 0.0F, y + j0,
                    static_cast<blasint>(n));
    }
    if (bias == nullptr) return;
    for (int64_t row = 0; row < m; ++row) {
        float* out = y + row * n;
        for (int64_t j = 0; j < n; ++j) out[j] += bias[j];
    }
}

void embedding_f16(const int32_t* ids, const uint16_t* table, float* y, int64_t n, int64_t vocab,
                   int64_t width) {
    for (int64_t i = 0; i < n; ++i) {
        if (ids[i] < 0 || ids[i] >= vocab) {
            throw std::out_of_range("token id " + std::to_string(ids[i]) + " is outside [0, " +
                                    std::to_string(vocab) + ")");
        }
        widen_f16(table + static_cast<int64_t>(ids[i]) * width, y + i * width, width);
    }
}

}  // namespace earshot::backend::cpu
