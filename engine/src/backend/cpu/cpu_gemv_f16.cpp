// f16-weight GEMV: F16C + FMA on machines that have them (checked once at run time), an exact
// portable half-to-float conversion otherwise. Rows of w are split over the thread pool.
#include "cpu_gemv_f16.h"

#include <immintrin.h>

#include "cpu_threads.h"
#include "earshot/engine/checkpoint/half_float.h"

namespace earshot::backend::cpu {

namespace {

float dot_portable(const float* x, const uint16_t* w, int64_t k) {
    float sum = 0.0F;
    for (int64_t i = 0; i < k; ++i) sum += x[i] * checkpoint::f16_to_f32(w[i]);
    return sum;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma,f16c"))) float dot_f16c(const float* x, const uint16_t* w,
                                                        int64_t k) {
    __m256 acc0 = _mm256_setzero_ps();
    __m256 acc1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= k; i += 16) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i)));
        const __m256 w1 =
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i + 8)));
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), w0, acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), w1, acc1);
    }
    const __m256 acc = _mm256_add_ps(acc0, acc1);
    __m128 half = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    half = _mm_add_ss(half, _mm_shuffle_ps(half, half, 1));
    float sum = _mm_cvtss_f32(half);
    for (; i < k; ++i) sum += x[i] * checkpoint::f16_to_f32(w[i]);
    return sum;
}

bool has_f16c() {
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                                  __builtin_cpu_supports("f16c");
    return supported;
}
#endif

}  // namespace

void linear_f16(const float* x, const uint16_t* w, const float* bias, float* y, int64_t m,
                int64_t k, int64_t n) {
    ThreadPool::shared().parallel_for(n, 256, [&](int64_t begin, int64_t end) {
        for (int64_t row = 0; row < m; ++row) {
            const float* xr = x + row * k;
            float* yr = y + row * n;
            for (int64_t j = begin; j < end; ++j) {
#if defined(__x86_64__) && defined(__GNUC__)
                const float dot =
                    has_f16c() ? dot_f16c(xr, w + j * k, k) : dot_portable(xr, w + j * k, k);
#else
                const float dot = dot_portable(xr, w + j * k, k);
#endif
                yr[j] = bias == nullptr ? dot : dot + bias[j];
            }
        }
    });
}

}  // namespace earshot::backend::cpu
