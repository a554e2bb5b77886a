// What the CPU kernels' vectorized loops share: the function-multiversioning attribute that
// compiles a loop for AVX2 and for baseline x86-64, and e^x in plain arithmetic that those loops
// vectorize. Files using them are compiled with -fno-trapping-math and -fno-math-errno (see
// engine/CMakeLists.txt), so their selects if-convert.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

// The loader picks one clone per machine (GCC function multiversioning); the math is identical.
// Not under ThreadSanitizer: the instrumented ifunc resolvers run at load time, before the
// sanitizer's runtime is set up, and crash the program.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define EARSHOT_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EARSHOT_VECTOR_CLONES
#endif

namespace earshot::backend::cpu {

// e^x for x <= 88 with ~1e-7 relative error: x = n ln2 + r, |r| <= ln2 / 2, e^r by its degree-6
// Taylor polynomial (error below r^7 / 7! = 1.2e-7), 2^n assembled in the exponent bits.
[[gnu::always_inline]] inline float exp_approx(float x) {
    // Plain selects, not std::min/max: those are out-of-line templates the AVX2 clone cannot
    // inline.
    x = x < -87.0F ? -87.0F : x;
    x = x > 88.0F ? 88.0F : x;
    const float n = std::floor(x * 1.44269504088896341F + 0.5F);
    const float r = x - n * 0.693145751953125F - n * 1.428606765330187e-06F;  // Cody-Waite ln 2
    const float p =
        1.0F +
        r * (1.0F +
             r * (0.5F + r * (1.0F / 6 + r * (1.0F / 24 + r * (1.0F / 120 + r * (1.0F / 720))))));
    const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
    return p * std::bit_cast<float>(bits);
}

}  // namespace earshot::backend::cpu
