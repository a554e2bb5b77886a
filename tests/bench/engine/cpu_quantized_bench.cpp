// The CPU backend on quantized checkpoints (q8_0, q5_0, q4_0, q2_k .. q6_k) against the f16
// checkpoint of the same random tiny- or base-shaped model, measured in the same process: a
// decoder step at positions 8 and 200, a beam-5 step and the encoder on one 30 s window, each
// reported as its time over the f16 one (x_f16, the two measured in alternating blocks so that
// both see the same machine); the bytes a step reads (weights and caches) and the rate that makes;
// and the memory a loaded model keeps resident against its file's size (x_file). The quantized
// files are the f16 model's weights quantized by the project's reference quantizer into
// whisper.cpp's layout.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "ggml_writer.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::backend::CacheStorage;
using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;
using earshot::checkpoint::GgmlType;

struct Shape {
    const char* name;
    int64_t d;
    int64_t heads;
    int64_t layers;  // encoder and decoder each
};

constexpr Shape kTiny{"tiny", 384, 6, 4};  // openai tiny and base: D, heads, layers
constexpr Shape kBase{"base", 512, 8, 6};

// The anonymous memory this process holds (RssAnon: the file pages of a mapping are the page
// cache's), after handing freed heap memory back.
double resident_bytes() {
    malloc_trim(0);
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("RssAnon:")) return 1024.0 * std::stod(line.substr(8));  // kB
    }
    return 0;
}

int backend_threads() {
    if (const char* value = std::getenv("EARSHOT_CPU_THREADS")) {
        if (std::atoi(value) > 0) return std::atoi(value);
    }
    return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

HostTensor random_mel() {
    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.0F, 0.5F);
    HostTensor mel = HostTensor::f32({1, 80, 3000});
    for (float& v : mel.f32_values()) v = normal(random);
    return mel;
}

// A loaded model of one shape and type, with what the benchmarks report about it.
struct Loaded {
    std::unique_ptr<CpuWhisper> whisper;
    double file_bytes = 0;
    double resident_bytes = 0;     // what loading it added to this process, files released
    double step_weight_bytes = 0;  // the matrices, norms and biases a decoder step reads
    bool listened = false;         // its caches hold a window's audio (listen ran, one row)
    int32_t stepped_to = -1;       // the latest position a step wrote since that listen
};

// `loaded` at one row whose audio caches hold `mel`'s window, ready for a step at `pos`: listens
// once per model (a base window takes about a second at 2 threads; the step benchmarks would
// listen 60 times), then keeps row 0 (expand_batch(1) after a beam). Listens again when `pos` is
// before a position already written, so cache_bytes() (the positions written so far) counts
// exactly 0 .. pos.
void listen_once(Loaded& loaded, const HostTensor& mel, int32_t pos) {
    if (loaded.listened && pos >= loaded.stepped_to) {
        loaded.whisper->expand_batch(1);
    } else {
        loaded.whisper->resize_batch(1);
        benchmark::DoNotOptimize(loaded.whisper->listen(mel));
        loaded.listened = true;
    }
    loaded.stepped_to = pos;
}

// The f16 model of `shape` (a random checkpoint) and its ggml twin in `type`, each written once.
fs::path model_file(const Shape& shape, GgmlType type) {
    static earshot::test::TempDir dir("earshot-quantized-bench");
    const fs::path hf = dir.path() / (std::string(shape.name) + "-f16");
    if (!fs::exists(hf)) {
        earshot::model::RandomCheckpointOptions options;
        options.d = shape.d;
        options.heads = shape.heads;
        options.enc_layers = shape.layers;
        options.dec_layers = shape.layers;
        options.dtype = "f16";
        earshot::model::write_random_checkpoint(hf, options);
    }
    if (type == GgmlType::f16) return hf;
    const fs::path file =
        dir.path() / (std::string(shape.name) + "-" +
                      std::string(earshot::checkpoint::ggml_type_name(type)) + ".bin");
    if (!fs::exists(file)) {
        const auto source = earshot::model::load_whisper_checkpoint(hf);
        earshot::test::write_ggml_file(
            file, earshot::test::ggml_twin(source.weights, source.binding.config, type));
    }
    return file;
}

double directory_bytes(const fs::path& path) {
    if (!fs::is_directory(path)) return double(fs::file_size(path));
    double bytes = 0;
    for (const auto& entry : fs::directory_iterator(path)) {
        if (entry.is_regular_file()) bytes += double(entry.file_size());
    }
    return bytes;
}

// Whether a decoder step reads the parameter at `path` (the audio caches' key and value
// projections run once per window, in prefill).
bool read_by_step(const std::string& path) {
    if (path == "token_embedding" || path.starts_with("decoder_norm")) return true;
    return path.starts_with("decoder_layers.") && path.find("encoder_attn.k_proj") == path.npos &&
           path.find("encoder_attn.v_proj") == path.npos;
}

Loaded& model(const Shape& shape, GgmlType type) {
    static std::map<std::tuple<const Shape*, GgmlType>, Loaded> models;
    Loaded& slot = models[{&shape, type}];
    if (slot.whisper) return slot;
    const fs::path file = model_file(shape, type);
    const double before = resident_bytes();
    auto checkpoint = earshot::model::load_whisper_checkpoint(file);
    for (const auto& weight : checkpoint.weights.weights()) {
        if (read_by_step(weight.path)) slot.step_weight_bytes += double(weight.bytes.size());
    }
    // f16 caches, as the transcriber decodes f16 and quantized checkpoints.
    slot.whisper = std::make_unique<CpuWhisper>(checkpoint, 1, CacheStorage::f16);
    checkpoint.weights.release_files();  // as a loaded model does (core/models/loaded_model)
    slot.resident_bytes = resident_bytes() - before;
    slot.file_bytes = directory_bytes(file);
    return slot;
}

// Runs `run` on the quantized model and on the f16 one in alternating blocks of `block` calls:
// the quantized model's seconds per call, and the f16 model's.
template <typename Run>
std::pair<double, double> alternate(benchmark::State& state, CpuWhisper& quantized, CpuWhisper& f16,
                                    int block, const Run& run) {
    std::chrono::duration<double> timed[2] = {};
    for (auto _ : state) {
        for (int variant = 0; variant < 2; ++variant) {
            CpuWhisper& whisper = variant == 0 ? quantized : f16;
            const auto start = std::chrono::steady_clock::now();
            for (int i = 0; i < block; ++i) run(whisper);
            timed[variant] += std::chrono::steady_clock::now() - start;
        }
    }
    const double calls = double(state.iterations()) * block;
    return {timed[0].count() / calls, timed[1].count() / calls};
}

void report_memory(benchmark::State& state, const Loaded& loaded) {
    state.counters["file_MiB"] = loaded.file_bytes / double(1 << 20);
    state.counters["resident_MiB"] = loaded.resident_bytes / double(1 << 20);
    state.counters["x_file"] = loaded.resident_bytes / loaded.file_bytes;
}

// A one-row decoder step at position range(0).
void step(benchmark::State& state, const Shape& shape, GgmlType type) {
    Loaded& q = model(shape, type);
    Loaded& f16 = model(shape, GgmlType::f16);
    const auto pos = static_cast<int32_t>(state.range(0));
    const HostTensor mel = random_mel();
    const HostTensor token = HostTensor::i32({1, 1}, 50364);
    for (Loaded* loaded : {&q, &f16}) {
        listen_once(*loaded, mel, pos);
        benchmark::DoNotOptimize(loaded->whisper->step(token, pos));
    }
    const auto [q_s, f16_s] = alternate(state, *q.whisper, *f16.whisper, 8, [&](CpuWhisper& w) {
        benchmark::DoNotOptimize(w.step(token, pos));
    });
    const double read = q.step_weight_bytes + double(q.whisper->cache_bytes());
    const double f16_read = f16.step_weight_bytes + double(f16.whisper->cache_bytes());
    state.counters["ms"] = 1e3 * q_s;
    state.counters["f16_ms"] = 1e3 * f16_s;
    state.counters["x_f16"] = q_s / f16_s;
    state.counters["read_MiB"] = read / double(1 << 20);
    state.counters["x_f16_read"] = read / f16_read;
    state.counters["read_GBps"] = read / q_s / 1e9;
    state.counters["threads"] = backend_threads();
    report_memory(state, q);
}

// A step of a beam of 5 rows (the audio caches shared), at position range(0).
void step_beam5(benchmark::State& state, const Shape& shape, GgmlType type) {
    constexpr int64_t kRows = 5;
    Loaded& q = model(shape, type);
    Loaded& f16 = model(shape, GgmlType::f16);
    const auto pos = static_cast<int32_t>(state.range(0));
    const HostTensor mel = random_mel();
    const HostTensor tokens = HostTensor::i32({kRows, 1}, std::vector<int32_t>(kRows, 50364));
    for (Loaded* loaded : {&q, &f16}) {
        listen_once(*loaded, mel, pos);
        loaded->whisper->expand_batch(kRows);
        benchmark::DoNotOptimize(loaded->whisper->step(tokens, pos));
    }
    const auto [q_s, f16_s] = alternate(state, *q.whisper, *f16.whisper, 4, [&](CpuWhisper& w) {
        benchmark::DoNotOptimize(w.step(tokens, pos));
    });
    for (CpuWhisper* whisper : {q.whisper.get(), f16.whisper.get()}) whisper->expand_batch(1);
    state.counters["ms"] = 1e3 * q_s;
    state.counters["f16_ms"] = 1e3 * f16_s;
    state.counters["x_f16"] = q_s / f16_s;
    state.counters["threads"] = backend_threads();
}

// The encoder on one 30 s window.
void encode(benchmark::State& state, const Shape& shape, GgmlType type) {
    Loaded& q = model(shape, type);
    Loaded& f16 = model(shape, GgmlType::f16);
    const HostTensor mel = random_mel();
    for (Loaded* loaded : {&q, &f16}) {
        loaded->whisper->resize_batch(1);  // the audio caches zeroed: the next step listens again
        loaded->listened = false;
        benchmark::DoNotOptimize(loaded->whisper->encode(mel));  // plans once, outside the timing
    }
    const auto [q_s, f16_s] = alternate(state, *q.whisper, *f16.whisper, 1, [&](CpuWhisper& w) {
        benchmark::DoNotOptimize(w.encode(mel));
    });
    state.counters["ms"] = 1e3 * q_s;
    state.counters["f16_ms"] = 1e3 * f16_s;
    state.counters["x_f16"] = q_s / f16_s;
    state.counters["threads"] = backend_threads();
    report_memory(state, q);
}

#define EARSHOT_QUANT_BENCH(shape, type)                                    \
    BENCHMARK_CAPTURE(step, shape##_##type, k##shape, GgmlType::type)       \
        ->Arg(8)                                                            \
        ->Arg(200)                                                          \
        ->Unit(benchmark::kMillisecond)                                     \
        ->UseRealTime();                                                    \
    BENCHMARK_CAPTURE(step_beam5, shape##_##type, k##shape, GgmlType::type) \
        ->Arg(200)                                                          \
        ->Unit(benchmark::kMillisecond)                                     \
        ->UseRealTime();                                                    \
    BENCHMARK_CAPTURE(encode, shape##_##type, k##shape, GgmlType::type)     \
        ->Unit(benchmark::kMillisecond)                                     \
        ->UseRealTime()

EARSHOT_QUANT_BENCH(Tiny, q8_0);
EARSHOT_QUANT_BENCH(Tiny, q5_0);
EARSHOT_QUANT_BENCH(Base, q8_0);
EARSHOT_QUANT_BENCH(Base, q5_0);
EARSHOT_QUANT_BENCH(Base, q4_0);
EARSHOT_QUANT_BENCH(Base, q2_k);
EARSHOT_QUANT_BENCH(Base, q3_k);
EARSHOT_QUANT_BENCH(Base, q4_k);
EARSHOT_QUANT_BENCH(Base, q5_k);
EARSHOT_QUANT_BENCH(Base, q6_k);

}  // namespace
