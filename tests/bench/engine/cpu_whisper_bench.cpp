// CPU backend benchmarks on random tiny- and base-shaped checkpoints: the encoder on one 30 s
// window, one encoder layer's self-attention (against two sgemms per head), and a decoder step at
// positions 8 and 200, each against baselines measured in the same process: the machine's sgemm
// rate, the encoder's own GEMMs run alone through OpenBLAS, and for the step its memory floor: the
// bytes a step must read (f16 weights and f16 caches, what whisper.cpp reads) over the machine's
// read rate measured just before, with as many threads as the CPU backend uses. A step reports its
// wall time over its CPU time (1.0: no thread waits) and the bytes its caches hold; steps run with
// f32 caches and with f16 ones (what decoding an f16 checkpoint uses), and the step with its
// vocabulary head streamed past the caches runs against the same step without streaming. The
// encoder and the steps also print their plan's kernels, MiB read and written and GFLOP as the
// plan listing (`earshot debug plan --backend cpu`) counts them.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "backend/cpu/cpu_gemv_f16.h"
#include "backend/cpu/cpu_kernels.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using earshot::backend::CacheStorage;
using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;

struct Shape {
    const char* name;
    int64_t d;
    int64_t heads;
    int64_t layers;  // encoder and decoder each
};

constexpr Shape kTiny{"tiny", 384, 6, 4};
constexpr Shape kBase{"base", 512, 8, 6};
constexpr int64_t kMels = 80;
constexpr int64_t kFrames = 3000;  // one 30 s window
constexpr int64_t kAudio = 1500;   // 1 + (-1 + Frames) / 2

double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

double thread_cpu_s() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double process_cpu_s() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// The threads the CPU backend runs on (its pool: EARSHOT_CPU_THREADS, else one per hardware
// thread).
int backend_threads() {
    if (const char* value = std::getenv("EARSHOT_CPU_THREADS")) {
        if (std::atoi(value) > 0) return std::atoi(value);
    }
    return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

// Bytes per second the machine reads from memory: `threads` threads each summing its share of a
// 256 MiB buffer (far beyond the caches), best of five passes.
double read_rate_bytes_per_s(int threads) {
    static std::vector<float> buffer(size_t(64) << 20, 1.0F);
    double best = 0;
    for (int pass = 0; pass < 5; ++pass) {
        std::vector<float> sums(static_cast<size_t>(threads));
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t) {
            workers.emplace_back([&, t] {
                const size_t begin = buffer.size() * size_t(t) / size_t(threads);
                const size_t end = buffer.size() * size_t(t + 1) / size_t(threads);
                float a = 0, b = 0, c = 0, d = 0;
                for (size_t i = begin; i + 4 <= end; i += 4) {
                    a += buffer[i];
                    b += buffer[i + 1];
                    c += buffer[i + 2];
                    d += buffer[i + 3];
                }
                sums[size_t(t)] = a + b + c + d;
            });
        }
        for (auto& worker : workers) worker.join();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        benchmark::DoNotOptimize(sums.data());
        best = std::max(best, double(buffer.size() * sizeof(float)) / took.count());
    }
    return best;
}

// One loaded model per shape and cache storage for the whole process (writing and loading takes
// seconds).
// A random checkpoint of `shape`, f16 unless `dtype` says otherwise (f32: what openai/whisper-*
// safetensors hold).
CpuWhisper& model(const Shape& shape, CacheStorage caches = CacheStorage::f32,
                  const std::string& dtype = "f16") {
    static std::map<std::tuple<const Shape*, CacheStorage, std::string>,
                    std::unique_ptr<CpuWhisper>>
        models;
    static earshot::test::TempDir dir("earshot-bench");
    auto& slot = models[{&shape, caches, dtype}];
    if (!slot) {
        earshot::model::RandomCheckpointOptions options;
        options.d = shape.d;
        options.heads = shape.heads;
        options.enc_layers = shape.layers;
        options.dec_layers = shape.layers;
        options.dtype = dtype;
        const auto path = dir.path() / (shape.name + std::string("-") + dtype);
        if (!std::filesystem::exists(path)) earshot::model::write_random_checkpoint(path, options);
        slot =
            std::make_unique<CpuWhisper>(earshot::model::load_whisper_checkpoint(path), 1, caches);
    }
    return *slot;
}

HostTensor random_mel() {
    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.0F, 0.5F);
    HostTensor mel = HostTensor::f32({1, kMels, kFrames});
    for (float& v : mel.f32_values()) v = normal(random);
    return mel;
}

// The encoder's matrix products, in its order: (M, N, K) with y [M, N] = x [M, K] w^T.
struct Gemm {
    int64_t m, n, k, count;
};

std::vector<Gemm> encoder_gemms(const Shape& s) {
    const int64_t dh = s.d / s.heads;
    return {
        {kFrames, s.d, kMels * 3, 1},              // conv1 (im2col)
        {kAudio, s.d, s.d * 3, 1},                 // conv2
        {kAudio, s.d, s.d, 4 * s.layers},          // q, k, v, out projections
        {kAudio, kAudio, dh, s.heads * s.layers},  // scores q k^T per head
        {kAudio, dh, kAudio, s.heads * s.layers},  // probabilities times v per head
        {kAudio, 4 * s.d, s.d, s.layers},          // fc1
        {kAudio, s.d, 4 * s.d, s.layers},          // fc2
    };
}

double flops(const std::vector<Gemm>& gemms) {
    double total = 0;
    for (const auto& g : gemms)
        total += 2.0 * double(g.m) * double(g.n) * double(g.k) * double(g.count);
    return total;
}

void run_gemms(const std::vector<Gemm>& gemms, std::vector<float>& a, std::vector<float>& b,
               std::vector<float>& c) {
    for (const auto& g : gemms) {
        for (int64_t i = 0; i < g.count; ++i) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blasint(g.m), blasint(g.n),
                        blasint(g.k), 1.0F, a.data(), blasint(g.k), b.data(), blasint(g.k), 0.0F,
                        c.data(), blasint(g.n));
        }
    }
}

// The machine's sgemm rate on a large square product: the ceiling every ratio is read against.
void BM_SgemmRate(benchmark::State& state) {
    const int64_t n = 1536;
    std::vector<float> a(size_t(n * n), 0.5F), b(size_t(n * n), 0.25F), c(size_t(n * n));
    for (auto _ : state) {
        run_gemms({{n, n, n, 1}}, a, b, c);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOPs"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n),
                                                  benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::kIs1000);
}
BENCHMARK(BM_SgemmRate)->Unit(benchmark::kMillisecond)->UseRealTime();

void encoder_gemms_alone(benchmark::State& state, const Shape& shape) {
    const auto gemms = encoder_gemms(shape);
    size_t a_size = 0, b_size = 0, c_size = 0;
    for (const auto& g : gemms) {
        a_size = std::max(a_size, size_t(g.m * g.k));
        b_size = std::max(b_size, size_t(g.n * g.k));
        c_size = std::max(c_size, size_t(g.m * g.n));
    }
    std::vector<float> a(a_size, 0.5F), b(b_size, 0.25F), c(c_size);
    for (auto _ : state) {
        run_gemms(gemms, a, b, c);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOPs"] = benchmark::Counter(
        flops(gemms), benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// The work of one `entry` on the CPU as the plan listing counts it (`earshot debug plan`): its
// kernels, MiB read and written and GFLOP, beside the benchmark's own floor or baseline.
void report_plan(benchmark::State& state, const CpuWhisper& whisper, const std::string& entry,
                 CacheStorage caches = CacheStorage::f16) {
    earshot::backend::PlanListingRequest request;
    request.entry = entry;
    request.backend = earshot::backend::PlanBackend::cpu;
    request.cache_dtype = caches == CacheStorage::f16 ? "f16" : "f32";
    const auto listing = earshot::backend::list_plan(whisper.binding(), request);
    state.counters["plan_kernels"] = double(listing.kernels.size());
    state.counters["plan_read_MiB"] = double(listing.read_bytes()) / double(1 << 20);
    state.counters["plan_written_MiB"] = double(listing.written_bytes()) / double(1 << 20);
    state.counters["plan_GFLOP"] = double(listing.flops()) / 1e9;
}

void encode(benchmark::State& state, const Shape& shape) {
    CpuWhisper& whisper = model(shape);
    const HostTensor mel = random_mel();
    benchmark::DoNotOptimize(whisper.encode(mel));  // plans once, outside the timing
    for (auto _ : state) benchmark::DoNotOptimize(whisper.encode(mel));
    report_plan(state, whisper, "encode");
    state.counters["GFLOPs"] = benchmark::Counter(flops(encoder_gemms(shape)),
                                                  benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::kIs1000);
    state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// One encoder layer's self-attention at the shape (every head, 1500 queries against 1500 keys):
// through the backend's kernel (register tiles on its pool), and as the baseline the same
// arithmetic as two OpenBLAS sgemms per head with the rows' softmax between them, which is how
// the backend ran it before. GFLOPs counts the two products.
void encoder_attention(benchmark::State& state, const Shape& shape, bool sgemm_baseline) {
    const int64_t dh = shape.d / shape.heads;
    const int64_t slice = kAudio * dh;
    std::mt19937 random(11);
    std::normal_distribution<float> normal(0.0F, 1.0F);
    std::vector<float> q(size_t(shape.heads * slice)), k(q.size()), v(q.size()), y(q.size());
    for (auto* values : {&q, &k, &v}) {
        for (float& x : *values) x = normal(random);
    }
    std::vector<float> scores(size_t(kAudio * kAudio));
    const float scale = 1.0F / std::sqrt(float(dh));
    const auto n = blasint(kAudio);
    const auto d = blasint(dh);
    for (auto _ : state) {
        if (!sgemm_baseline) {
            earshot::backend::cpu::attention(q.data(), k.data(), v.data(), nullptr, y.data(), 1,
                                             shape.heads, kAudio, kAudio, dh, scale);
        } else {
            for (int64_t h = 0; h < shape.heads; ++h) {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, d, scale,
                            q.data() + h * slice, d, k.data() + h * slice, d, 0.0F, scores.data(),
                            n);
                earshot::backend::cpu::softmax_rows(scores.data(), nullptr, kAudio, kAudio);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, d, n, 1.0F, scores.data(),
                            n, v.data() + h * slice, d, 0.0F, y.data() + h * slice, d);
            }
        }
        benchmark::DoNotOptimize(y.data());
    }
    state.counters["GFLOPs"] = benchmark::Counter(
        4.0 * double(shape.heads) * double(kAudio) * double(kAudio) * double(dh),
        benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

void encoder_attention_tiles(benchmark::State& state, const Shape& shape) {
    encoder_attention(state, shape, false);
}

void encoder_attention_sgemm(benchmark::State& state, const Shape& shape) {  // baseline
    encoder_attention(state, shape, true);
}

// What one decoder step must read at position `pos`, stored as whisper.cpp stores it: f16
// weights (per layer q, k, v, out, cross q, cross out: 6 D^2; fc1, fc2: 8 D^2; the tied head:
// Vocab x D) and f16 caches (cross keys and values over the audio, self ones up to pos).
double step_bytes(const Shape& s, int64_t pos) {
    constexpr int64_t kVocab = 51865;
    const double d = double(s.d);
    const double weights = double(s.layers) * 14.0 * d * d + double(kVocab) * d;
    const double caches = double(s.layers) * 2.0 * d * double(kAudio + pos + 1);
    return 2.0 * (weights + caches);
}

// A decoder step with the caches in `caches` (the transcriber uses f16 ones for f16 weights).
void step_with(benchmark::State& state, const Shape& shape, CacheStorage caches) {
    CpuWhisper& whisper = model(shape, caches);
    const auto pos = static_cast<int32_t>(state.range(0));
    benchmark::DoNotOptimize(whisper.listen(random_mel()));
    const HostTensor token = HostTensor::i32({1, 1}, 50364);
    benchmark::DoNotOptimize(whisper.step(token, pos));
    const double rate = read_rate_bytes_per_s(backend_threads());
    const double floor_ms = 1e3 * step_bytes(shape, pos) / rate;
    const auto wall_start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_s();
    const double process_start = process_cpu_s();
    for (auto _ : state) benchmark::DoNotOptimize(whisper.step(token, pos));
    const double cpu_s = thread_cpu_s() - cpu_start;
    const double process_s = process_cpu_s() - process_start;
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
    const double steps = double(state.iterations());
    state.counters["read_GBps"] = rate / 1e9;
    // The whisper.cpp-equivalent baseline: its bytes at the measured rate, and this step over it.
    state.counters["floor_ms"] = floor_ms;
    state.counters["x_floor"] = 1e3 * wall.count() / steps / floor_ms;
    // Wall over the calling thread's CPU time (1.0: it never waits for the others), and the CPU
    // time of all threads per step.
    state.counters["wall_per_cpu"] = wall.count() / cpu_s;
    state.counters["all_cpu_ms"] = 1e3 * process_s / steps;
    state.counters["threads"] = backend_threads();
    state.counters["peak_rss_MiB"] = peak_rss_mib();
    state.counters["cache_MiB"] = double(whisper.cache_bytes()) / double(1 << 20);
    report_plan(state, whisper, "step", caches);
}

// The step with f16 caches, its vocabulary head streamed past the caches (the default) against
// the same step with every matrix read through them, in alternating blocks of steps so both see
// the same machine: x_cached is the step's time over the baseline's.
void step_streamed_head(benchmark::State& state, const Shape& shape) {
    namespace cpu = earshot::backend::cpu;
    CpuWhisper& whisper = model(shape, CacheStorage::f16);
    const auto pos = static_cast<int32_t>(state.range(0));
    benchmark::DoNotOptimize(whisper.listen(random_mel()));
    const HostTensor token = HostTensor::i32({1, 1}, 50364);
    const int64_t streamed = cpu::streamed_matrix_bytes();
    constexpr int kBlock = 16;
    std::chrono::duration<double> timed[2] = {};
    for (auto _ : state) {
        for (int variant = 0; variant < 2; ++variant) {
            cpu::set_streamed_matrix_bytes(variant == 0 ? streamed : INT64_MAX);
            benchmark::DoNotOptimize(whisper.step(token, pos));  // the caches settle
            const auto start = std::chrono::steady_clock::now();
            for (int i = 0; i < kBlock; ++i) benchmark::DoNotOptimize(whisper.step(token, pos));
            timed[variant] += std::chrono::steady_clock::now() - start;
        }
    }
    cpu::set_streamed_matrix_bytes(-1);
    const double steps = double(state.iterations()) * kBlock;
    state.counters["streamed_ms"] = 1e3 * timed[0].count() / steps;
    state.counters["cached_ms"] = 1e3 * timed[1].count() / steps;
    state.counters["x_cached"] = timed[0].count() / timed[1].count();
    state.counters["streamed_MiB"] = double(streamed) / double(1 << 20);
}

// A step of a beam of 5 (what `earshot transcribe` decodes files with), f16 caches, the audio
// caches shared by the rows: its time per row, and over the one-row step measured in the same
// process just before (x_one_row_step: the rows' share of the weights' reads).
void step_beam5(benchmark::State& state, const Shape& shape) {
    constexpr int64_t kRows = 5;
    CpuWhisper& whisper = model(shape, CacheStorage::f16);
    const auto pos = static_cast<int32_t>(state.range(0));
    benchmark::DoNotOptimize(whisper.listen(random_mel()));
    const HostTensor one = HostTensor::i32({1, 1}, 50364);
    benchmark::DoNotOptimize(whisper.step(one, pos));
    constexpr int kOneRowSteps = 64;
    const auto one_start = std::chrono::steady_clock::now();
    for (int i = 0; i < kOneRowSteps; ++i) benchmark::DoNotOptimize(whisper.step(one, pos));
    const std::chrono::duration<double> one_row = std::chrono::steady_clock::now() - one_start;
    whisper.expand_batch(kRows);
    const HostTensor tokens = HostTensor::i32({kRows, 1}, std::vector<int32_t>(kRows, 50364));
    benchmark::DoNotOptimize(whisper.step(tokens, pos));
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) benchmark::DoNotOptimize(whisper.step(tokens, pos));
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
    whisper.resize_batch(1);
    const double step_s = wall.count() / double(state.iterations());
    state.counters["ms_per_row"] = 1e3 * step_s / double(kRows);
    state.counters["x_one_row_step"] = step_s / (one_row.count() / kOneRowSteps);
}

// One-row and beam steps of an f32 checkpoint (f32 weights and caches): the time of each.
void step_f32_weights(benchmark::State& state, const Shape& shape) {
    CpuWhisper& whisper = model(shape, CacheStorage::f32, "f32");
    const auto pos = static_cast<int32_t>(state.range(0));
    const int64_t rows = state.range(1);
    benchmark::DoNotOptimize(whisper.listen(random_mel()));
    if (rows > 1) whisper.expand_batch(rows);
    const HostTensor tokens = HostTensor::i32({rows, 1}, std::vector<int32_t>(size_t(rows), 50364));
    benchmark::DoNotOptimize(whisper.step(tokens, pos));
    for (auto _ : state) benchmark::DoNotOptimize(whisper.step(tokens, pos));
    whisper.resize_batch(1);
}

void step(benchmark::State& state, const Shape& shape) {
    step_with(state, shape, CacheStorage::f32);
}

void step_f16_caches(benchmark::State& state, const Shape& shape) {
    step_with(state, shape, CacheStorage::f16);
}

BENCHMARK_CAPTURE(encoder_gemms_alone, tiny, kTiny)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(encode, tiny, kTiny)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(encoder_attention_sgemm, tiny, kTiny)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(encoder_attention_tiles, tiny, kTiny)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(step, tiny, kTiny)
    ->Arg(8)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(step_f16_caches, tiny, kTiny)
    ->Arg(8)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(step_streamed_head, tiny, kTiny)->Arg(200)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(step_beam5, tiny, kTiny)->Arg(200)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(step_f32_weights, tiny, kTiny)
    ->Args({200, 1})
    ->Args({200, 5})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(encoder_gemms_alone, base, kBase)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(encode, base, kBase)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(encoder_attention_sgemm, base, kBase)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(encoder_attention_tiles, base, kBase)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(step, base, kBase)
    ->Arg(8)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_CAPTURE(step_f16_caches, base, kBase)
    ->Arg(8)
    ->Arg(200)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(step_streamed_head, base, kBase)->Arg(200)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(step_beam5, base, kBase)->Arg(200)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
