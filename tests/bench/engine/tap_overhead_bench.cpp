// What a tap costs a dictation update on the CPU backend: one update's engine work (listen on a
// 30 s window, a prefill of the start of transcript, 12 decoder steps) on a random tiny-shaped
// checkpoint, untapped (the baseline) and with one tap open, run alternately in the same loop so
// that both see the same machine. The target: at most +5% (ratio <= 1.05). Two taps are
// measured, each alone: an encoder block's output (copied once per listen, [1, 1500, 384]) and
// the cross-attention of the last decoder layer (copied after every step, [1, 1, 384]); and the
// encoder block's value handed over as dictation does (TapChannel, a snapshot per update).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/backend/tap_channel.h"
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

// The median of the per-pair ratios: a pair's two updates run back to back, so a load spike on
// the machine (other processes) moves both; the median leaves out the pairs a spike split.
double median_ratio(std::vector<double> ratios) {
    std::sort(ratios.begin(), ratios.end());
    const size_t n = ratios.size();
    return n % 2 == 1 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0;
}

// How a tapped update hands its values on.
enum class HandOver {
    none,     // the backend's TapSet alone (what `debug tap` and the Files page use)
    channel,  // dictation: TapChannel::prepare before and publish after every update
};

// Alternates untapped and tapped updates (the order swapped every iteration); reports both
// means, tapped / untapped of the sums (ratio_of_sums) and the median of the per-pair ratios
// (ratio).
void BM_UpdateWithOneTap(benchmark::State& state, const char* edge, HandOver hand_over) {
    Model& m = model();
    CpuWhisper plain(*m.checkpoint);
    CpuWhisper tapped(*m.checkpoint);
    TapSet taps({edge});
    earshot::backend::TapChannel channel;
    channel.set_names({edge});
    std::shared_ptr<const earshot::backend::TapSnapshot> shown;  // what the UI last took
    tapped.set_taps(&taps);
    auto tapped_update = [&] {
        if (hand_over == HandOver::none) return update_ms(tapped, m.mel);
        const auto start = std::chrono::steady_clock::now();
        channel.prepare(taps);
        update_ms(tapped, m.mel);
        channel.publish(taps);
        shown = channel.latest();  // the UI thread takes each update's snapshot
        const std::chrono::duration<double, std::milli> took =
            std::chrono::steady_clock::now() - start;
        return took.count();
    };
    update_ms(plain, m.mel);  // plans made, arenas grown: both warm
    tapped_update();
    double plain_ms = 0.0;
    double tapped_ms = 0.0;
    std::vector<double> ratios;
    for (auto _ : state) {
        double a = 0.0;
        double b = 0.0;
        if (ratios.size() % 2 == 0) {
            a = update_ms(plain, m.mel);
            b = tapped_update();
        } else {
            b = tapped_update();
            a = update_ms(plain, m.mel);
        }
        plain_ms += a;
        tapped_ms += b;
        ratios.push_back(b / a);
    }
    const bool control = std::string(edge) == "no_such_edge";
    if (taps.values().front().filled == control) state.SkipWithError("the tap was not as expected");
    const auto pairs = static_cast<double>(ratios.size());
    state.counters["untapped_ms"] = plain_ms / pairs;
    state.counters["tapped_ms"] = tapped_ms / pairs;
    state.counters["ratio_of_sums"] = tapped_ms / plain_ms;
    state.counters["ratio"] = median_ratio(ratios);
}

// Pairs per case: 8, or 2 in ctest's smoke run (EARSHOT_BENCH_SMOKE set), which only checks that
// the benchmark runs; ratios need the 8.
int64_t pair_count() { return std::getenv("EARSHOT_BENCH_SMOKE") != nullptr ? 2 : 8; }

// The control: a tap set whose name no plan has (the same two models, no copy): what the
// measurement itself shows as a difference.
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, control_no_such_edge, "no_such_edge", HandOver::none)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(pair_count());
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, encoder_block, "encoder_layers[3].forward", HandOver::none)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(pair_count());
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, cross_attention_in_steps,
                  "decoder_layers[3].encoder_attn.attend", HandOver::none)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(pair_count());
// Dictation's whole hand-over: the encoder block's value through the TapChannel at every update.
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, encoder_block_live, "encoder_layers[3].forward",
                  HandOver::channel)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(pair_count());

}  // namespace
