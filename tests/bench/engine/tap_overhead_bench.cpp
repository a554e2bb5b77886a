// What a tap costs a dictation update on the CPU backend: one update's engine work (listen on a
// 30 s window, a prefill of the start of transcript, 12 decoder steps) on a random tiny-shaped
// checkpoint, untapped (the baseline) and with one tap open, run alternately in the same loop so
// that both see the same machine. The target: at most +5% (ratio <= 1.05). Two taps are
// measured, each alone: an encoder block's output (copied once per listen, [1, 1500, 384]) and
// the cross-attention of the last decoder layer (copied after every step, [1, 1, 384]).
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;
using earshot::backend::TapSet;

constexpr int64_t kMels = 80;
constexpr int64_t kFrames = 3000;
constexpr int kSteps = 12;

struct Model {
    earshot::test::TempDir dir{"earshot-tap-bench"};
    std::unique_ptr<earshot::model::WhisperCheckpoint> checkpoint;
    HostTensor mel;
};

Model& model() {
    static const std::unique_ptr<Model> m = [] {
        auto made = std::make_unique<Model>();
        earshot::model::RandomCheckpointOptions options;  // tiny: D 384, 6 heads, 4 + 4 layers
        options.dtype = "f16";
        earshot::model::write_random_checkpoint(made->dir.path(), options);
        made->checkpoint = std::make_unique<earshot::model::WhisperCheckpoint>(
            earshot::model::load_whisper_checkpoint(made->dir.path()));
        std::vector<float> values(static_cast<size_t>(kMels * kFrames));
        for (size_t i = 0; i < values.size(); ++i) {
            values[i] = static_cast<float>((i * 7919) % 1000) / 1000.0F - 0.5F;
        }
        made->mel = HostTensor::f32({1, kMels, kFrames}, std::move(values));
        return made;
    }();
    return *m;
}

// One update's engine work; returns its wall time in ms.
double update_ms(CpuWhisper& whisper, const HostTensor& mel) {
    const auto start = std::chrono::steady_clock::now();
    whisper.listen(mel);
    whisper.prefill(HostTensor::i32({1, 4}, {50258, 50259, 50360, 50364}));
    int32_t token = 440;
    for (int s = 0; s < kSteps; ++s) {
        const HostTensor logits = whisper.step(HostTensor::i32({1, 1}, {token}), 4 + s);
        benchmark::DoNotOptimize(logits.f32_values().data());
        token = 440 + s;
    }
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    return took.count();
}

// Alternates untapped and tapped updates (the order swapped every iteration); reports both
// means and tapped / untapped.
void BM_UpdateWithOneTap(benchmark::State& state, const char* edge) {
    Model& m = model();
    CpuWhisper plain(*m.checkpoint);
    CpuWhisper tapped(*m.checkpoint);
    TapSet taps({edge});
    tapped.set_taps(&taps);
    update_ms(plain, m.mel);  // plans made, arenas grown: both warm
    update_ms(tapped, m.mel);
    double plain_ms = 0.0;
    double tapped_ms = 0.0;
    int64_t pairs = 0;
    for (auto _ : state) {
        if (pairs % 2 == 0) {
            plain_ms += update_ms(plain, m.mel);
            tapped_ms += update_ms(tapped, m.mel);
        } else {
            tapped_ms += update_ms(tapped, m.mel);
            plain_ms += update_ms(plain, m.mel);
        }
        ++pairs;
    }
    const bool control = std::string(edge) == "no_such_edge";
    if (taps.values().front().filled == control) state.SkipWithError("the tap was not as expected");
    state.counters["untapped_ms"] = plain_ms / static_cast<double>(pairs);
    state.counters["tapped_ms"] = tapped_ms / static_cast<double>(pairs);
    state.counters["ratio"] = tapped_ms / plain_ms;
}

// The control: a tap set whose name no plan has (the same two models, no copy): what the
// measurement itself shows as a difference.
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, control_no_such_edge, "no_such_edge")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(6);
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, encoder_block, "encoder_layers[3].forward")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(6);
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, cross_attention_in_steps,
                  "decoder_layers[3].encoder_attn.attend")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(6);

}  // namespace
