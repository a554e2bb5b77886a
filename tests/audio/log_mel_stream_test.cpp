// LogMelStream: frames against a direct double-precision STFT, equality with the batch frames for
// every chunking, the frame schedule, no allocation per frame, and normalize_window.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <new>
#include <numbers>
#include <random>
#include <vector>

#include "earshot/audio/log_mel.h"

// Counts operator new calls on threads that asked for it (the no-allocation test below). This
// replaces the global allocation functions of earshot_audio_tests; GCC cannot see that the
// replaced pair matches and warns at every inlined delete, hence the pragma.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
thread_local bool g_count_allocations = false;
thread_local long g_allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
    if (g_count_allocations) ++g_allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace earshot::audio {
namespace {

// Speech-like test signal: two tones, a chirp and noise, in [-1, 1].
std::vector<float> test_signal(std::size_t samples, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    std::vector<float> x(samples);
    for (std::size_t n = 0; n < samples; ++n) {
        const double t = static_cast<double>(n) / kWhisperSampleRateHz;
        x[n] = static_cast<float>(0.4 * std::sin(2 * std::numbers::pi * 440.0 * t) +
                                  0.2 * std::sin(2 * std::numbers::pi * (300.0 + 900.0 * t) * t)) +
               noise(rng);
    }
    return x;
}

// Frame t of Whisper's log-mel written out from the definition (reference §1.2 to §1.5), in
// double with a plain DFT: reflect-padded samples [160 t - 200, 160 t + 200), periodic Hann,
// |X|^2, double filters, log10(max(., 1e-10)).
std::vector<double> direct_frame(const std::vector<float>& x, std::int64_t t, int mels) {
    const auto length = static_cast<std::int64_t>(x.size());
    std::vector<double> frame(400);
    for (std::int64_t n = 0; n < 400; ++n) {
        std::int64_t i = 160 * t - 200 + n;
        if (i < 0) i = -i;
        if (i >= length) i = 2 * (length - 1) - i;
        const double hann =
            0.5 - 0.5 * std::cos(2 * std::numbers::pi * static_cast<double>(n) / 400);
        frame[static_cast<std::size_t>(n)] =
            hann * static_cast<double>(x[static_cast<std::size_t>(i)]);
    }
    std::vector<double> power(201);
    for (std::size_t k = 0; k < 201; ++k) {
        double re = 0.0;
        double im = 0.0;
        for (std::size_t n = 0; n < 400; ++n) {
            const double phase = 2 * std::numbers::pi * static_cast<double>(k * n) / 400;
            re += frame[n] * std::cos(phase);
            im -= frame[n] * std::sin(phase);
        }
        power[k] = re * re + im * im;
    }
    const MelFilterbank filters(mels);
    std::vector<double> out(static_cast<std::size_t>(mels));
    for (int m = 0; m < mels; ++m) {
        double sum = 0.0;
        for (int k = 0; k < 201; ++k)
            sum += filters.weight(m, k) * power[static_cast<std::size_t>(k)];
        out[static_cast<std::size_t>(m)] = std::log10(std::max(sum, 1e-10));
    }
    return out;
}

TEST(LogMelStream, FramesMatchTheDefinition) {
    // 16 000 + 77 samples: 100 frames; the last two reach past the end (end reflection).
    const std::vector<float> x = test_signal(16077, 1);
    for (int mels : {80, 128}) {
        const std::vector<float> raw = raw_log_mel_frames(x, mels);  // [Frames][Mels]
        ASSERT_EQ(raw.size(), 100u * static_cast<std::size_t>(mels));
        for (std::int64_t t : {0, 1, 2, 50, 98, 99}) {
            const std::vector<double> expected = direct_frame(x, t, mels);
            for (int m = 0; m < mels; ++m) {
                // Float FFT and power against double: a few 1e-6 in log10 units.
                EXPECT_NEAR(raw[static_cast<std::size_t>(t * mels + m)],
                            expected[static_cast<std::size_t>(m)], 2e-4)
                    << "frame " << t << " mel " << m << " of " << mels;
            }
        }
    }
}

TEST(LogMelStream, EveryChunkingGivesTheBatchFrames) {
    const std::vector<float> x = test_signal(3 * 16000 + 123, 2);
    const std::vector<float> batch = raw_log_mel_frames(x, 80);
    ASSERT_EQ(batch.size(), (x.size() / 160) * 80);

    std::mt19937 rng(7);
    std::uniform_int_distribution<int> kind(0, 3);
    std::uniform_int_distribution<std::size_t> small(1, 400);
    std::uniform_int_distribution<std::size_t> large(1, 9000);
    for (int run = 0; run < 6; ++run) {
        LogMelStream stream(80);
        std::vector<float> frames;
        std::int64_t expected_index = 0;
        auto sink = [&](std::int64_t index, std::span<const float> frame) {
            EXPECT_EQ(index, expected_index++);
            frames.insert(frames.end(), frame.begin(), frame.end());
        };
        std::size_t at = 0;
        while (at < x.size()) {
            // Run 0 pushes one sample at a time; the others mix 1-sample, small and large chunks.
            const int k = run == 0 ? 0 : kind(rng);
            std::size_t n = k == 0 ? 1 : k == 1 ? 0 : k == 2 ? small(rng) : large(rng);
            n = std::min(n, x.size() - at);
            const std::int64_t emitted = stream.push(std::span(x).subspan(at, n), sink);
            at += n;
            // Every frame whose samples exist is out: frame t once 160 t + 200 (and 201) arrived.
            const auto pushed = static_cast<std::int64_t>(at);
            const std::int64_t ready = pushed <= 200 ? 0 : (pushed - 200) / 160 + 1;
            ASSERT_EQ(stream.frames_emitted(), ready) << "after " << at << " samples";
            ASSERT_GE(emitted, 0);
        }
        stream.finish(sink);
        EXPECT_EQ(stream.frames_emitted(), static_cast<std::int64_t>(x.size() / 160));
        ASSERT_EQ(frames.size(), batch.size()) << "run " << run;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            ASSERT_EQ(frames[i], batch[i]) << "run " << run << " value " << i;
        }
    }
}

TEST(LogMelStream, FrameCountsForShortSignals) {
    // floor(L / 160) frames for any length, including ones shorter than the 200-sample padding.
    for (std::size_t length : {0u, 1u, 159u, 160u, 200u, 201u, 319u, 320u, 361u, 4000u}) {
        const std::vector<float> x = test_signal(length, 3);
        LogMelStream stream(80);
        std::int64_t count = 0;
        std::vector<float> last(80);
        auto sink = [&](std::int64_t, std::span<const float> frame) {
            ++count;
            std::copy(frame.begin(), frame.end(), last.begin());
        };
        stream.push(x, sink);
        stream.finish(sink);
        EXPECT_EQ(count, static_cast<std::int64_t>(length / 160)) << length;
        EXPECT_EQ(stream.finish(sink), 0) << "a second finish emits nothing";
        if (count > 0) {
            for (float v : last) EXPECT_TRUE(std::isfinite(v) && v >= kLogMelFloor) << length;
        }
    }
}

TEST(LogMelStream, ResetStartsANewSignal) {
    const std::vector<float> a = test_signal(5000, 4);
    const std::vector<float> b = test_signal(4321, 5);
    LogMelStream stream(80);
    std::vector<float> frames;
    auto sink = [&](std::int64_t, std::span<const float> f) {
        frames.insert(frames.end(), f.begin(), f.end());
    };
    stream.push(a, sink);
    stream.finish(sink);
    stream.reset();
    frames.clear();
    EXPECT_EQ(stream.frames_emitted(), 0);
    stream.push(b, sink);
    stream.finish(sink);
    EXPECT_EQ(frames, raw_log_mel_frames(b, 80));
}

TEST(LogMelStream, PushAndFinishDoNotAllocate) {
    const std::vector<float> x = test_signal(5 * 16000, 6);
    LogMelStream stream(128);
    std::vector<float> sum(128, 0.0f);
    std::int64_t frames = 0;
    auto sink = [&](std::int64_t, std::span<const float> f) {
        ++frames;
        for (std::size_t m = 0; m < f.size(); ++m) sum[m] += f[m];
    };
    g_allocations = 0;
    g_count_allocations = true;
    for (std::size_t at = 0; at < x.size(); at += 480) {
        stream.push(std::span(x).subspan(at, std::min<std::size_t>(480, x.size() - at)), sink);
    }
    stream.push(x, sink);  // one large chunk too (more than the stream's own buffer)
    stream.finish(sink);
    g_count_allocations = false;
    EXPECT_EQ(g_allocations, 0);
    EXPECT_EQ(frames, static_cast<std::int64_t>(2 * x.size() / 160));
}

TEST(LogMelNormalize, ClampsToWindowMaxMinusEightAndTransposes) {
    // Two mels, three frames, [Frames][Mels]: max is 1.0, so the floor is -7.0.
    const std::vector<float> raw{1.0f, -10.0f, -7.5f, 0.25f, -3.0f, -6.0f};
    const LogMel mel = normalize_window(raw, 2);
    ASSERT_EQ(mel.mels, 2);
    ASSERT_EQ(mel.frames, 3);
    EXPECT_EQ(mel.values, (std::vector<float>{1.25f, -0.75f, 0.25f, -0.75f, 1.0625f, -0.5f}));
    EXPECT_FLOAT_EQ(mel.at(0, 0), (1.0f + 4.0f) / 4.0f);
    EXPECT_FLOAT_EQ(mel.at(1, 0), (-7.0f + 4.0f) / 4.0f);
}

TEST(LogMelNormalize, PadsWithSilenceAndCuts) {
    const std::vector<float> raw{-2.0f, -4.0f, -3.0f, -5.0f};  // [2 frames][2 mels], max -2
    const LogMel padded = normalize_window(raw, 2, 4);
    ASSERT_EQ(padded.frames, 4);
    const float silence = (-2.0f - 8.0f + 4.0f) / 4.0f;  // (max - 4) / 4 = -1.5
    EXPECT_EQ(silence, -1.5f);
    EXPECT_EQ(padded.values, (std::vector<float>{0.5f, 0.25f, silence, silence,  //
                                                 0.0f, -0.25f, silence, silence}));
    const LogMel cut = normalize_window(raw, 2, 1);  // the max of what is kept: -2
    EXPECT_EQ(cut.values, (std::vector<float>{0.5f, 0.0f}));
    const LogMel cut2 = normalize_window(std::vector<float>{-9.0f, -9.5f, 5.0f, 5.0f}, 2, 1);
    EXPECT_EQ(cut2.values, (std::vector<float>{-1.25f, -1.375f})) << "a cut frame's max unused";
    EXPECT_THROW(normalize_window(raw, 3), std::invalid_argument);
}

TEST(LogMelNormalize, StreamingWindowsNormalizeWithTheirOwnMax) {
    // A loud first second then a quiet one: normalized per window, the quiet window keeps its
    // detail instead of sitting at the loud window's floor.
    std::vector<float> x = test_signal(2 * 16000, 8);
    for (std::size_t n = 16000; n < x.size(); ++n) x[n] *= 1e-4f;
    const std::vector<float> raw = raw_log_mel_frames(x, 80);  // [200][80]
    const std::span<const float> quiet(raw.data() + 110 * 80, 90 * 80);
    const LogMel window = normalize_window(quiet, 80, kWhisperWindowFrames);
    float quiet_max = kLogMelFloor;
    for (float v : quiet) quiet_max = std::max(quiet_max, v);
    EXPECT_EQ(window.frames, 3000);
    float max_value = -100.0f;
    for (float v : window.values) max_value = std::max(max_value, v);
    EXPECT_EQ(max_value, (quiet_max + 4.0f) / 4.0f);
    // Padding is raw silence, log10(1e-10) = -10: here above the quiet max - 8, so it is not
    // clamped and normalizes to (-10 + 4) / 4.
    ASSERT_LT(quiet_max, -2.0f);
    EXPECT_EQ(window.at(0, 2999), -1.5f);
    // Over the whole signal the loud part sets the floor, several units above the quiet max.
    const LogMel whole = log_mel(x, 80);
    float loud_max = kLogMelFloor;
    for (float v : raw) loud_max = std::max(loud_max, v);
    EXPECT_GT(loud_max - quiet_max, 4.0f);
    EXPECT_EQ(whole.at(40, 150), (std::max(raw[150 * 80 + 40], loud_max - 8.0f) + 4.0f) / 4.0f);
}

}  // namespace
}  // namespace earshot::audio
