// What a tap costs a dictation update on the CPU backend: one update's engine work (listen on a
// 30 s window, a prefill of the start of transcript, 12 decoder steps) on a random tiny-shaped
// checkpoint. The target: one open tap adds at most 5% (ratio <= 1.05).
//
// Each round runs three updates back to back, in an order that cycles through all six: the
// untapped model (the baseline), a second untapped model (the control: what the measurement
// shows when nothing differs) and the tapped one. A round gives two paired ratios, tapped /
// baseline and control / baseline, in wall time and in the process's CPU time
// (CLOCK_PROCESS_CPUTIME_ID: the engine's threads are the only ones working, and CPU time does not
// count the time other processes on a shared machine take the cores). Reported: the median of
// each kind of ratio, its interquartile range and a bootstrap 95% interval of the median; and
// the tap's own cost measured directly (the time fill_tapped spent copying it on this thread,
// fill_tapped_ns_on_this_thread, plus dictation's hand-over TapChannel::prepare / publish /
// latest) as a share of the tapped update's wall time, which the ratio should agree with.
//
// Cases: the control with a TapSet attached whose name no plan has (with no tap, no cost), an
// encoder block's output (copied once per listen, [1, 1500, 384]), the cross-attention of the
// last decoder layer (copied after every step, [1, 1, 384]), and the encoder block's value handed
// over as dictation does (a TapChannel snapshot per update).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend/tap_copy.h"
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

double process_cpu_ms() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

double wall_ms() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The 1-minute load average of the machine (/proc/loadavg), -1 when it cannot be read.
double load_average() {
    std::ifstream file("/proc/loadavg");
    double one = -1.0;
    file >> one;
    return one;
}

// One update's engine work: listen, prefill, steps.
void run_update(CpuWhisper& whisper, const HostTensor& mel) {
    whisper.listen(mel);
    whisper.prefill(HostTensor::i32({1, 4}, {50258, 50259, 50360, 50364}));
    int32_t token = 440;
    for (int s = 0; s < kSteps; ++s) {
        const HostTensor logits = whisper.step(HostTensor::i32({1, 1}, {token}), 4 + s);
        benchmark::DoNotOptimize(logits.f32_values().data());
        token = 440 + s;
    }
}

struct Timed {
    double wall_ms = 0.0;
    double cpu_ms = 0.0;
};

template <typename Work>
Timed timed(Work work) {
    const double wall = wall_ms();
    const double cpu = process_cpu_ms();
    work();
    return {wall_ms() - wall, process_cpu_ms() - cpu};
}

double quantile(std::vector<double> values, double q) {
    std::sort(values.begin(), values.end());
    const double at = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<size_t>(at);
    const size_t above = std::min(below + 1, values.size() - 1);
    return values[below] + (at - static_cast<double>(below)) * (values[above] - values[below]);
}

// The median, its interquartile range, and a bootstrap 95% interval of the median (2000
// resamples, a fixed seed: the same ratios give the same interval).
struct Spread {
    double median = 0.0;
    double q1 = 0.0;
    double q3 = 0.0;
    double lo95 = 0.0;
    double hi95 = 0.0;
};

Spread spread(const std::vector<double>& ratios) {
    Spread s{quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75), 0.0, 0.0};
    std::mt19937 random(20261203);
    std::uniform_int_distribution<size_t> pick(0, ratios.size() - 1);
    std::vector<double> medians;
    std::vector<double> sample(ratios.size());
    for (int b = 0; b < 2000; ++b) {
        for (double& value : sample) value = ratios[pick(random)];
        medians.push_back(quantile(sample, 0.5));
    }
    s.lo95 = quantile(medians, 0.025);
    s.hi95 = quantile(medians, 0.975);
    return s;
}

// How a tapped update hands its values on.
enum class HandOver {
    none,     // the backend's TapSet alone (what `debug tap` and the Files page use)
    channel,  // dictation: TapChannel::prepare before and publish after every update
};

void report(benchmark::State& state, const char* prefix, const Spread& s) {
    const std::string p(prefix);
    state.counters[p] = s.median;
    state.counters[p + "_q1"] = s.q1;
    state.counters[p + "_q3"] = s.q3;
    state.counters[p + "_lo95"] = s.lo95;
    state.counters[p + "_hi95"] = s.hi95;
}

void BM_UpdateWithOneTap(benchmark::State& state, const char* edge, HandOver hand_over) {
    Model& m = model();
    CpuWhisper baseline(*m.checkpoint);
    CpuWhisper control(*m.checkpoint);
    CpuWhisper tapped(*m.checkpoint);
    TapSet taps({edge});
    earshot::backend::TapChannel channel;
    channel.set_names({edge});
    std::shared_ptr<const earshot::backend::TapSnapshot> shown;  // what the UI last took
    tapped.set_taps(&taps);
    double hand_over_ms = 0.0;  // of the last tapped update
    const auto tapped_update = [&] {
        if (hand_over == HandOver::none) {
            run_update(tapped, m.mel);
            return;
        }
        double took = 0.0;
        double started = wall_ms();
        channel.prepare(taps);
        took += wall_ms() - started;
        run_update(tapped, m.mel);
        started = wall_ms();
        channel.publish(taps);
        shown = channel.latest();  // the UI thread takes each update's snapshot
        took += wall_ms() - started;
        hand_over_ms = took;
    };
    run_update(baseline, m.mel);  // plans made, arenas grown: all three warm
    run_update(control, m.mel);
    tapped_update();

    // The six orders of (baseline, control, tapped), one per round in turn.
    constexpr std::array<std::array<int, 3>, 6> kOrders{
        {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}}};
    std::vector<double> wall_ratio, cpu_ratio, control_wall, control_cpu, tap_share;
    std::vector<double> baseline_wall, tapped_wall, tap_ms;
    size_t round = 0;
    for (auto _ : state) {
        std::array<Timed, 3> t{};
        uint64_t copied_ns = 0;
        for (const int which : kOrders[round % kOrders.size()]) {
            if (which == 0) t[0] = timed([&] { run_update(baseline, m.mel); });
            if (which == 1) t[1] = timed([&] { run_update(control, m.mel); });
            if (which == 2) {
                const uint64_t before = earshot::backend::fill_tapped_ns_on_this_thread();
                t[2] = timed(tapped_update);
                copied_ns = earshot::backend::fill_tapped_ns_on_this_thread() - before;
            }
        }
        ++round;
        wall_ratio.push_back(t[2].wall_ms / t[0].wall_ms);
        cpu_ratio.push_back(t[2].cpu_ms / t[0].cpu_ms);
        control_wall.push_back(t[1].wall_ms / t[0].wall_ms);
        control_cpu.push_back(t[1].cpu_ms / t[0].cpu_ms);
        const double own_ms = static_cast<double>(copied_ns) * 1e-6 + hand_over_ms;
        tap_ms.push_back(own_ms);
        tap_share.push_back(own_ms / t[2].wall_ms);
        baseline_wall.push_back(t[0].wall_ms);
        tapped_wall.push_back(t[2].wall_ms);
    }
    const bool no_tap = std::string(edge) == "no_such_edge";
    if (taps.values().front().filled == no_tap) state.SkipWithError("the tap was not as expected");
    const Spread wall = spread(wall_ratio);
    const Spread cpu = spread(cpu_ratio);
    const Spread ctl_wall = spread(control_wall);
    const Spread ctl_cpu = spread(control_cpu);
    const Spread share = spread(tap_share);
    state.counters["untapped_ms"] = quantile(baseline_wall, 0.5);
    state.counters["tapped_ms"] = quantile(tapped_wall, 0.5);
    report(state, "wall_ratio", wall);
    report(state, "cpu_ratio", cpu);
    report(state, "control_wall", ctl_wall);
    report(state, "control_cpu", ctl_cpu);
    state.counters["tap_ms"] = quantile(tap_ms, 0.5);
    state.counters["tap_pct"] = 100.0 * share.median;
    state.counters["load1"] = load_average();
    // One readable line per case beside the counters.
    std::fprintf(stderr,
                 "%s%s: rounds %zu, load %.2f | tapped/untapped wall %.4f [IQR %.4f-%.4f, 95%% "
                 "%.4f-%.4f] cpu %.4f [IQR %.4f-%.4f, 95%% %.4f-%.4f] | control wall %.4f [IQR "
                 "%.4f-%.4f] cpu %.4f [IQR %.4f-%.4f, 95%% %.4f-%.4f] | tap's own %.3f ms = "
                 "%.3f%% of the update (IQR %.3f-%.3f%%)\n",
                 edge, hand_over == HandOver::channel ? " (dictation hand-over)" : "",
                 wall_ratio.size(), load_average(), wall.median, wall.q1, wall.q3, wall.lo95,
                 wall.hi95, cpu.median, cpu.q1, cpu.q3, cpu.lo95, cpu.hi95, ctl_wall.median,
                 ctl_wall.q1, ctl_wall.q3, ctl_cpu.median, ctl_cpu.q1, ctl_cpu.q3, ctl_cpu.lo95,
                 ctl_cpu.hi95, quantile(tap_ms, 0.5), 100.0 * share.median, 100.0 * share.q1,
                 100.0 * share.q3);
}

// Rounds per case: 24 (72 updates), or 1 in ctest's smoke run (EARSHOT_BENCH_SMOKE set), which
// only checks that the benchmark runs (as many updates as the 2 pairs it ran before); ratios need
// the 24.
int64_t round_count() { return std::getenv("EARSHOT_BENCH_SMOKE") != nullptr ? 1 : 24; }

BENCHMARK_CAPTURE(BM_UpdateWithOneTap, no_such_edge, "no_such_edge", HandOver::none)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(round_count());
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, encoder_block, "encoder_layers[3].forward", HandOver::none)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(round_count());
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, cross_attention_in_steps,
                  "decoder_layers[3].encoder_attn.attend", HandOver::none)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(round_count());
// Dictation's whole hand-over: the encoder block's value through the TapChannel at every update.
BENCHMARK_CAPTURE(BM_UpdateWithOneTap, encoder_block_live, "encoder_layers[3].forward",
                  HandOver::channel)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(round_count());

}  // namespace
