// Log-mel speed: 60 s of audio through LogMelStream in 30 ms chunks (the audio thread's case),
// against the batch path over the same samples as the baseline measured in the same run.
// Counters: frames per CPU second and the multiple of real time (100 frames = 1 s of audio).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <span>
#include <vector>

#include "earshot/audio/log_mel.h"

namespace {

using earshot::audio::kWhisperSampleRateHz;

constexpr std::size_t kAudioSeconds = 60;
constexpr std::size_t kChunkSamples = 480;  // 30 ms, a typical capture callback
constexpr double kFramesPerAudioSecond = 100.0;

std::vector<float> test_audio() {
    std::mt19937 rng(1);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    std::vector<float> x(kAudioSeconds * kWhisperSampleRateHz);
    for (std::size_t n = 0; n < x.size(); ++n) {
        const double t = static_cast<double>(n) / kWhisperSampleRateHz;
        x[n] = static_cast<float>(0.3 * std::sin(2 * std::numbers::pi * 220.0 * t)) + noise(rng);
    }
    return x;
}

void set_counters(benchmark::State& state, std::int64_t frames) {
    const auto total = static_cast<double>(frames) * static_cast<double>(state.iterations());
    // kIsRate divides by the CPU time of the run (the benchmark is single-threaded).
    state.counters["frames_per_s"] = benchmark::Counter(total, benchmark::Counter::kIsRate);
    state.counters["x_realtime"] =
        benchmark::Counter(total / kFramesPerAudioSecond, benchmark::Counter::kIsRate);
}

void BM_LogMelStream(benchmark::State& state) {
    const int mels = static_cast<int>(state.range(0));
    const std::vector<float> audio = test_audio();
    earshot::audio::LogMelStream stream(mels);
    float checksum = 0.0f;
    auto sink = [&checksum](std::int64_t, std::span<const float> frame) { checksum += frame[0]; };
    std::int64_t frames = 0;
    for (auto _ : state) {
        stream.reset();
        for (std::size_t at = 0; at < audio.size(); at += kChunkSamples) {
            stream.push(std::span(audio).subspan(at, kChunkSamples), sink);
        }
        stream.finish(sink);
        frames = stream.frames_emitted();
        benchmark::DoNotOptimize(checksum);
    }
    set_counters(state, frames);
}
BENCHMARK(BM_LogMelStream)->Arg(80)->Arg(128)->Unit(benchmark::kMillisecond);

// Baseline: the batch path (one push of everything, frames collected, normalized).
void BM_LogMelBatch(benchmark::State& state) {
    const int mels = static_cast<int>(state.range(0));
    const std::vector<float> audio = test_audio();
    std::int64_t frames = 0;
    for (auto _ : state) {
        const earshot::audio::LogMel mel = earshot::audio::log_mel(audio, mels);
        frames = mel.frames;
        benchmark::DoNotOptimize(mel.values.data());
    }
    set_counters(state, frames);
}
BENCHMARK(BM_LogMelBatch)->Arg(80)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace
