// CUDA backend benchmarks on random checkpoints of Whisper's large-v3, large-v3-turbo and base
// shapes (and a tiny one for smoke runs): the encoder on one 30 s window, a decoder step at
// positions 8 and 200, a beam-5 step, and one window end to end (listen, prefill, 100 greedy
// tokens with the token read back each step); the steps again on the kernels the speed work
// replaced (EARSHOT_CUDA_OLD_KERNELS=all while that model is made), named .../old_kernels, as the
// baseline in the same run, and at position 8 without programmatic dependent launch (.../no_pdl). A
// step on the same weights quantized to q5_0 (issue 34: the GEMVs read the blocks), named
// step/<shape>/pos8/q5_0, reports its time against the f16 step's timed in the same process
// (vs_f16, f16_step_ms). Each reports its time beside the floor the GPU allows (FLOPs at 790
// TFLOP/s, bytes at 4.3 TB/s: an H200's measured rates; a step's bytes count the caches as f16, as
// the module keeps them) and the target of the speed work, the bytes and FLOPs of the entries it
// ran as the plan listing counts them (`earshot debug plan`: kernels, MiB read and written, GFLOP),
// and the model's device memory. Without a CUDA device every benchmark reports the reason instead
// of a time.
//
// Checkpoints are written once into $EARSHOT_BENCH_CHECKPOINTS (default: a temporary directory)
// and reused when they exist, so the Hugging Face comparison (tests/gpu/hf_whisper_bench.py) can
// read the same weights.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "ggml_writer.h"

namespace {

namespace fs = std::filesystem;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;

// What an H200 reaches (measured, see the speed issue): f16 tensor-core rate and bandwidth.
constexpr double kFlopsPerSecond = 790e12;
constexpr double kBytesPerSecond = 4.3e12;

struct Shape {
    const char* name;
    int64_t mels, d, heads, encoder_layers, decoder_layers, vocab, frames, max_tokens;
    double encoder_target_ms;  // the speed issue's targets (0: none)
    double step_target_ms;
};

const std::vector<Shape>& shapes() {
    static const std::vector<Shape> list = {
        {"large-v3", 128, 1280, 20, 32, 32, 51866, 3000, 448, 5.0, 0.6},
        {"large-v3-turbo", 128, 1280, 20, 32, 4, 51866, 3000, 448, 5.0, 0.2},
        {"base", 80, 512, 8, 6, 6, 51865, 3000, 448, 1.0, 0.2},
        // Small enough for the CPU emulation of CUDA: the smoke run of this binary.
        {"tiny-smoke", 80, 64, 4, 1, 1, 512, 64, 32, 0.0, 0.0},
    };
    return list;
}

// FLOPs of one encoder window: conv1, conv2, per layer 4 projections, scores and weighted sum,
// and the MLP (2 per multiply-add).
double encoder_flops(const Shape& s) {
    const double a = static_cast<double>(s.frames) / 2.0;
    const double d = static_cast<double>(s.d);
    const double frames = static_cast<double>(s.frames);
    const double conv = 2.0 * frames * d * static_cast<double>(s.mels) * 3 + 2.0 * a * d * d * 3;
    const double layer = 2.0 * a * d * d * 4 + 2.0 * 2.0 * a * a * d + 2.0 * 2.0 * a * d * 4 * d;
    return conv + layer * static_cast<double>(s.encoder_layers);
}

// The module's decoder caches hold f16 values (cuda_launch_rules.h, kCacheValueBytes).
constexpr double kCacheBytesPerValue = 2.0;

// Bytes one batch-1 step must read: the decoder's f16 weights (self and cross attention
// projections, MLP, the tied head) and the caches it attends over.
double step_bytes(const Shape& s, int64_t pos, double cache_bytes_per_value) {
    const double d = static_cast<double>(s.d);
    const double layers = static_cast<double>(s.decoder_layers);
    const double weights =
        (layers * (4 * d * d + 2 * d * d + 2 * 4 * d * d) + static_cast<double>(s.vocab) * d) * 2.0;
    const double caches = layers * 2.0 * d *
                          (static_cast<double>(pos + 1) + static_cast<double>(s.frames) / 2.0) *
                          cache_bytes_per_value;
    return weights + caches;
}

std::optional<std::string> cuda_unavailable() {
    try {
        earshot::backend::cuda_devices();
        return std::nullopt;
    } catch (const earshot::backend::CudaError& error) {
        return std::string(error.what());
    }
}

fs::path checkpoint_dir(const Shape& shape) {
    static const fs::path root = [] {
        const char* set = std::getenv("EARSHOT_BENCH_CHECKPOINTS");
        return set != nullptr && *set != '\0' ? fs::path(set)
                                              : fs::temp_directory_path() / "earshot-cuda-bench";
    }();
    const fs::path dir = root / shape.name;
    if (!fs::exists(dir / "config.json")) {
        fs::remove_all(dir);
        earshot::model::RandomCheckpointOptions options;
        options.mels = shape.mels;
        options.d = shape.d;
        options.heads = shape.heads;
        options.enc_layers = shape.encoder_layers;
        options.dec_layers = shape.decoder_layers;
        options.vocab = shape.vocab;
        options.frames = shape.frames;
        options.max_tokens = shape.max_tokens;
        options.dtype = "f16";
        earshot::model::write_random_checkpoint(dir, options);
    }
    return dir;
}

// Which kernels a decoder step runs: the current ones, or those EARSHOT_CUDA_OLD_KERNELS=all
// brings back (one-query attention with one block per head, one GEMV column per warp, every
// LayerNorm, linear and cache write launched alone instead of the fused GEMVs), or the current
// ones launched plainly, not as programmatic dependent launches (EARSHOT_CUDA_OLD_KERNELS=pdl).
enum class StepKernels { current, old, no_pdl };

// EARSHOT_CUDA_OLD_KERNELS=all (old) or pdl (no_pdl) for its lifetime (the module reads it when a
// model is made, the plan listing when it lists), then as it was.
class OldKernelsWhile {
public:
    explicit OldKernelsWhile(StepKernels kernels) : set_(kernels != StepKernels::current) {
        if (!set_) return;
        if (const char* before = std::getenv(kName)) before_ = before;
        setenv(kName, kernels == StepKernels::old ? "all" : "pdl", 1);
    }
    ~OldKernelsWhile() {
        if (!set_) return;
        if (before_) {
            setenv(kName, before_->c_str(), 1);
        } else {
            unsetenv(kName);
        }
    }
    OldKernelsWhile(const OldKernelsWhile&) = delete;
    OldKernelsWhile& operator=(const OldKernelsWhile&) = delete;

private:
    static constexpr const char* kName = "EARSHOT_CUDA_OLD_KERNELS";
    bool set_;
    std::optional<std::string> before_;
};

// The shape's random checkpoint as a whisper.cpp file with its 2-D weights in q5_0 (as
// whisper.cpp's quantizer makes them), written once beside it.
fs::path q5_0_file(const Shape& shape) {
    const fs::path file =
        checkpoint_dir(shape).parent_path() / (std::string(shape.name) + "-q5_0.bin");
    if (!fs::exists(file)) {
        const auto f16 = earshot::model::load_whisper_checkpoint(checkpoint_dir(shape));
        const fs::path partial = file.string() + ".partial";
        earshot::test::write_ggml_file(
            partial, earshot::test::ggml_twin(f16.weights, f16.binding.config,
                                              earshot::checkpoint::GgmlType::q5_0));
        fs::rename(partial, file);
    }
    return file;
}

CudaWhisper& q5_0_model(const Shape& shape) {
    static std::map<std::string, std::unique_ptr<CudaWhisper>> models;
    auto& slot = models[shape.name];
    if (!slot) {
        const auto checkpoint = earshot::model::load_whisper_checkpoint(q5_0_file(shape));
        slot = std::make_unique<CudaWhisper>(checkpoint, 1, 0, std::string(shape.name) + " q5_0");
    }
    return *slot;
}

// One loaded model per shape (and kernels) for the whole run (writing and uploading takes
// seconds).
CudaWhisper& model(const Shape& shape, StepKernels kernels = StepKernels::current) {
    static std::map<std::string, std::unique_ptr<CudaWhisper>> models;
    auto& slot = models[std::string(shape.name) + (kernels == StepKernels::old      ? "/old"
                                                   : kernels == StepKernels::no_pdl ? "/no_pdl"
                                                                                    : "")];
    if (!slot) {
        const auto checkpoint = earshot::model::load_whisper_checkpoint(checkpoint_dir(shape));
        const OldKernelsWhile old(kernels);
        slot = std::make_unique<CudaWhisper>(checkpoint, 1, 0, std::string(shape.name));
    }
    return *slot;
}

HostTensor random_mel(const Shape& shape) {
    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.0F, 0.5F);
    HostTensor mel = HostTensor::f32({1, shape.mels, shape.frames});
    for (float& v : mel.f32_values()) v = normal(random);
    return mel;
}

HostTensor tokens(int64_t rows, int32_t id) {
    return HostTensor::i32({rows, 1}, std::vector<int32_t>(static_cast<size_t>(rows), id));
}

// What the entries a benchmark runs move and compute, as the plan listing counts them: each
// entry's listing (CUDA, `rows` rows) times how often it runs per iteration.
struct PlanWork {
    double kernels = 0, read_bytes = 0, written_bytes = 0, flops = 0;
    PlanWork& add(const CudaWhisper& whisper, const std::string& entry, int64_t rows = 1,
                  double times = 1.0) {
        earshot::backend::PlanListingRequest request;
        request.entry = entry;
        // Weights the module keeps as blocks counted at their blocks' bytes.
        request.weight_blocks = [&whisper](const std::string& path) {
            return whisper.kept_blocks(path);
        };
        request.backend = earshot::backend::PlanBackend::cuda;
        request.rows = rows;
        const auto listing = earshot::backend::list_plan(whisper.binding(), request);
        kernels += times * static_cast<double>(listing.kernels.size());
        read_bytes += times * static_cast<double>(listing.read_bytes());
        written_bytes += times * static_cast<double>(listing.written_bytes());
        flops += times * static_cast<double>(listing.flops());
        return *this;
    }
};

void report(benchmark::State& state, CudaWhisper& whisper, double floor_ms, double target_ms,
            const PlanWork& work) {
    state.counters["floor_ms"] = floor_ms;
    state.counters["plan_kernels"] = work.kernels;
    state.counters["plan_read_MiB"] = work.read_bytes / (1024.0 * 1024.0);
    state.counters["plan_written_MiB"] = work.written_bytes / (1024.0 * 1024.0);
    state.counters["plan_GFLOP"] = work.flops / 1e9;
    if (target_ms > 0) state.counters["target_ms"] = target_ms;
    state.counters["device_MiB"] = static_cast<double>(whisper.device_bytes()) / (1024.0 * 1024.0);
    // Captures that failed: their plans ran step by step, not from a graph.
    state.counters["graph_capture_failures"] =
        static_cast<double>(whisper.graph_capture_failures());
}

bool skip_without_cuda(benchmark::State& state) {
    static const std::optional<std::string> why = cuda_unavailable();
    if (why) state.SkipWithError(("no CUDA: " + *why).c_str());
    return why.has_value();
}

void BM_Encode(benchmark::State& state, const Shape& shape) {
    if (skip_without_cuda(state)) return;
    CudaWhisper& whisper = model(shape);
    whisper.resize_batch(1);
    const HostTensor mel = random_mel(shape);
    for (auto _ : state) whisper.listen_on_device(mel);
    report(state, whisper, encoder_flops(shape) / kFlopsPerSecond * 1e3, shape.encoder_target_ms,
           PlanWork().add(whisper, "listen"));
}

// A step at `pos` (the caches hold pos earlier positions); rows > 1 is a beam.
void BM_Step(benchmark::State& state, const Shape& shape, int32_t pos, int64_t rows,
             StepKernels kernels) {
    if (skip_without_cuda(state)) return;
    CudaWhisper& whisper = model(shape, kernels);
    whisper.resize_batch(1);
    whisper.listen_on_device(random_mel(shape));
    if (rows > 1) whisper.expand_batch(rows);
    const HostTensor token = tokens(rows, 50);
    for (auto _ : state) benchmark::DoNotOptimize(whisper.step(token, pos));
    const OldKernelsWhile old(kernels);  // the listing names the kernels that ran
    report(state, whisper, step_bytes(shape, pos, kCacheBytesPerValue) / kBytesPerSecond * 1e3,
           rows == 1 ? shape.step_target_ms : 0.0, PlanWork().add(whisper, "step", rows));
}

// A step at `pos` on the q5_0 twin of the shape's weights, and the same step on the f16 weights
// timed in the same process after it (the baseline): vs_f16 is the q5_0 step's time over the
// f16 step's.
void BM_StepQ5_0(benchmark::State& state, const Shape& shape, int32_t pos) {
    if (skip_without_cuda(state)) return;
    CudaWhisper& whisper = q5_0_model(shape);
    whisper.resize_batch(1);
    whisper.listen_on_device(random_mel(shape));
    const HostTensor token = tokens(1, 50);
    int64_t iterations = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(whisper.step(token, pos));
        ++iterations;
    }
    // The baseline: as many f16 steps (at least 10), timed here with the wall clock, as are the
    // q5_0 steps just before them (each step synchronises: its logits come back).
    const auto time_steps = [&](CudaWhisper& m, int64_t count) {
        m.step(token, pos);  // warm: the plan prepared, its graph captured
        m.step(token, pos);
        const auto start = std::chrono::steady_clock::now();
        for (int64_t i = 0; i < count; ++i) benchmark::DoNotOptimize(m.step(token, pos));
        const std::chrono::duration<double, std::milli> spent =
            std::chrono::steady_clock::now() - start;
        return spent.count() / static_cast<double>(count);
    };
    const int64_t count = std::max<int64_t>(10, iterations);
    const double q5_0_step_ms = time_steps(whisper, count);
    CudaWhisper& f16 = model(shape);
    f16.resize_batch(1);
    f16.listen_on_device(random_mel(shape));
    const double f16_step_ms = time_steps(f16, count);
    state.counters["q5_0_step_ms"] = q5_0_step_ms;
    state.counters["f16_step_ms"] = f16_step_ms;
    state.counters["vs_f16"] = q5_0_step_ms / f16_step_ms;
    const PlanWork work = PlanWork().add(whisper, "step", 1);
    report(state, whisper, work.read_bytes / kBytesPerSecond * 1e3, 0.0, work);
    state.counters["f16_plan_read_MiB"] =
        PlanWork().add(f16, "step", 1).read_bytes / (1024.0 * 1024.0);
}

// One window: listen, prefill of 4 tokens, 100 greedy steps, each token read back and chosen on
// the host (argmax) before the next step is launched.
void BM_Window(benchmark::State& state, const Shape& shape) {
    if (skip_without_cuda(state)) return;
    CudaWhisper& whisper = model(shape);
    const HostTensor mel = random_mel(shape);
    const int64_t steps = std::min<int64_t>(100, shape.max_tokens - 4);
    for (auto _ : state) {
        whisper.resize_batch(1);
        whisper.listen_on_device(mel);
        HostTensor logits = whisper.prefill(HostTensor::i32({1, 4}, {1, 2, 3, 4}));
        for (int32_t pos = 4; pos < 4 + steps; ++pos) {
            const auto values = logits.f32_values();
            const auto best = std::max_element(values.begin(), values.end()) - values.begin();
            logits = whisper.step(tokens(1, static_cast<int32_t>(best)), pos);
        }
        benchmark::DoNotOptimize(logits);
    }
    const double floor_ms = encoder_flops(shape) / kFlopsPerSecond * 1e3 +
                            static_cast<double>(steps) *
                                step_bytes(shape, 50, kCacheBytesPerValue) / kBytesPerSecond * 1e3;
    report(state, whisper, floor_ms, shape.name == std::string("large-v3") ? 70.0 : 0.0,
           PlanWork()
               .add(whisper, "listen")
               .add(whisper, "prefill")
               .add(whisper, "step", 1, static_cast<double>(steps)));
}

[[maybe_unused]] const bool registered = [] {
    for (const Shape& shape : shapes()) {
        const std::string name = shape.name;
        benchmark::RegisterBenchmark(("encode/" + name).c_str(), BM_Encode, shape)
            ->Unit(benchmark::kMillisecond);
        for (const StepKernels kernels : {StepKernels::current, StepKernels::old}) {
            const std::string suffix = kernels == StepKernels::old ? "/old_kernels" : "";
            for (int32_t pos : {8, 200}) {
                if (pos >= shape.max_tokens) continue;
                benchmark::RegisterBenchmark(
                    ("step/" + name + "/pos" + std::to_string(pos) + suffix).c_str(), BM_Step,
                    shape, pos, int64_t{1}, kernels)
                    ->Unit(benchmark::kMillisecond);
            }
            benchmark::RegisterBenchmark(("step_beam5/" + name + "/pos8" + suffix).c_str(), BM_Step,
                                         shape, int32_t{8}, int64_t{5}, kernels)
                ->Unit(benchmark::kMillisecond);
        }
        // The same step without programmatic dependent launch, to see what it gains.
        benchmark::RegisterBenchmark(("step/" + name + "/pos8/no_pdl").c_str(), BM_Step, shape,
                                     int32_t{8}, int64_t{1}, StepKernels::no_pdl)
            ->Unit(benchmark::kMillisecond);
        // One position: writing and loading the q5_0 twin is most of this row's time (large-v3:
        // 1.55 G values quantized), so the shape gets one such row.
        benchmark::RegisterBenchmark(("step/" + name + "/pos8/q5_0").c_str(), BM_StepQ5_0, shape,
                                     int32_t{8})
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("window100/" + name).c_str(), BM_Window, shape)
            ->Unit(benchmark::kMillisecond);
    }
    return true;
}();

}  // namespace
