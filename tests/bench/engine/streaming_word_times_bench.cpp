// The cost of aligned word times in live dictation: one iteration is a dictation of 5 s, a
// streaming update (listen, prefill, greedy steps, agreement) after every 1 s of new audio as
// the window fills, with words timed by estimate (the baseline, measured in the same process)
// and by cross-attention alignment (one more prefill per update that has words). A random
// checkpoint of Whisper tiny's shape on the CPU backend hears random frames, so its words are
// random; each update samples at most 24 tokens, about what a few spoken words take. The ratio
// of the two times is the cost of alignment:
//   earshot_engine_bench --benchmark_filter=StreamingUpdate --benchmark_min_time=20
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/streaming_transcriber.h"
#include "earshot/engine/decoding/word_alignment.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "temp_dir.h"
#include "tokenizer_assets.h"

namespace {

using earshot::decoding::StreamingOptions;
using earshot::decoding::StreamingTranscriber;
using earshot::decoding::WordTiming;

constexpr int64_t kMels = 80;
constexpr int64_t kUpdateFrames = 100;  // 1 s of audio per update
constexpr int64_t kWindowFrames = 500;  // 5 updates, the window growing to 5 s
constexpr int64_t kDecoderLayers = 4;   // Whisper tiny
constexpr int64_t kHeads = 6;

struct Fixture {
    earshot::test::TempDir dir{"earshot-streaming-bench"};
    std::optional<earshot::tokenizer::Tokenizer> tokenizer;
    std::optional<earshot::model::WhisperCheckpoint> checkpoint;
    std::unique_ptr<earshot::decoding::DecoderModel> model;
};

// Loaded once: the checkpoint (Whisper tiny's shape) and the multilingual vocabulary.
Fixture* fixture(benchmark::State& state) {
    static std::unique_ptr<Fixture> loaded;
    if (!loaded) {
        const auto vocabulary = earshot::test::multilingual_tiktoken();
        if (!std::filesystem::exists(vocabulary)) {
            state.SkipWithError("multilingual.tiktoken is not available");
            return nullptr;
        }
        auto f = std::make_unique<Fixture>();
        f->tokenizer.emplace(earshot::tokenizer::Tokenizer::load(vocabulary));
        earshot::model::write_random_checkpoint(f->dir.path(), {});
        f->checkpoint.emplace(earshot::model::load_whisper_checkpoint(f->dir.path()));
        f->model = earshot::runtime::make_cpu_decoder_model(*f->checkpoint);
        loaded = std::move(f);
    }
    return loaded.get();
}

// [N][Mels] raw frames -> [Mels, Frames], zero padded (the benchmark's stand-in for Whisper's
// normalization, which is the audio module's).
void transpose_window(std::span<const float> raw, int64_t frames, std::span<float> out) {
    std::fill(out.begin(), out.end(), 0.0F);
    const int64_t n = static_cast<int64_t>(raw.size()) / kMels;
    for (int64_t t = 0; t < n && t < frames; ++t) {
        for (int64_t m = 0; m < kMels; ++m) {
            out[static_cast<size_t>(m * frames + t)] = raw[static_cast<size_t>(t * kMels + m)];
        }
    }
}

void BM_StreamingUpdate(benchmark::State& state, WordTiming timing) {
    Fixture* f = fixture(state);
    if (f == nullptr) return;
    StreamingOptions options;
    options.decoding.language = "en";
    options.pacing = earshot::decoding::UpdatePacing::fixed;
    options.update_frames = kUpdateFrames;
    options.min_new_tokens = 24;
    options.new_tokens_per_s = 0.0;
    options.use_vad = false;
    if (timing == WordTiming::aligned) {
        options.alignment_heads =
            earshot::decoding::default_alignment_heads(kDecoderLayers, kHeads);
    }
    // The same frames for both timings.
    std::mt19937 random(7);
    std::normal_distribution<float> noise(0.0F, 1.0F);
    std::vector<float> frames(static_cast<size_t>(kWindowFrames * kMels));  // [N][Mels]
    for (float& v : frames) v = noise(random);
    int64_t words = 0;
    int64_t updates = 0;
    for (auto _ : state) {
        StreamingTranscriber transcriber(*f->model, *f->tokenizer, transpose_window, options);
        for (int64_t at = 0; at < kWindowFrames; ++at) {
            transcriber.push_frame(std::span(frames).subspan(static_cast<size_t>(at * kMels),
                                                             static_cast<size_t>(kMels)),
                                   true);
            if (!transcriber.update_due()) continue;
            const earshot::decoding::StreamUpdate update = transcriber.update();
            words +=
                static_cast<int64_t>(update.committed_words.size() + update.tentative_words.size());
            ++updates;
            if (update.word_timing != timing) {
                state.SkipWithError("the update's word timing differs");
            }
        }
    }
    state.counters["updates"] =
        benchmark::Counter(static_cast<double>(updates), benchmark::Counter::kAvgIterations);
    state.counters["words_per_update"] = benchmark::Counter(
        static_cast<double>(words) / static_cast<double>(std::max<int64_t>(updates, 1)));
}

BENCHMARK_CAPTURE(BM_StreamingUpdate, estimated, WordTiming::estimated)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamingUpdate, aligned, WordTiming::aligned)->Unit(benchmark::kMillisecond);

}  // namespace
