// Tokenizer benchmarks on the multilingual .tiktoken vocabulary: encoding 10,000 words of mixed
// scripts with a warm piece cache and with a cold one (a fresh tokenizer per run), against
// decoding the same ids as the baseline measured in the same process.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "earshot/engine/tokenizer/tokenizer.h"
#include "tokenizer_assets.h"

namespace {

using earshot::tokenizer::Tokenizer;

constexpr int kWords = 10000;

// About kWords words from the test corpus, joined by spaces.
const std::string& ten_thousand_words() {
    static const std::string text = [] {
        std::string joined;
        int words = 0;
        for (const std::string& t : earshot::test::sample_texts(4000)) {
            joined += t + " ";
            words += 1 + static_cast<int>(std::count(t.begin(), t.end(), ' '));
            if (words >= kWords) break;
        }
        return joined;
    }();
    return text;
}

std::optional<Tokenizer> load(benchmark::State& state) {
    const auto path = earshot::test::multilingual_tiktoken();
    if (!std::filesystem::exists(path)) {
        state.SkipWithError("multilingual.tiktoken is not available");
        return std::nullopt;
    }
    return Tokenizer::load(path);
}

void BM_DecodeTenThousandWords(benchmark::State& state) {  // baseline
    const auto tokenizer = load(state);
    if (!tokenizer) return;
    const std::vector<int32_t> ids = tokenizer->encode(ten_thousand_words());
    for (auto _ : state) {
        benchmark::DoNotOptimize(tokenizer->decode(ids));
    }
    state.counters["words/s"] =
        benchmark::Counter(kWords, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["tokens"] = static_cast<double>(ids.size());
}

void BM_EncodeTenThousandWordsWarm(benchmark::State& state) {
    const auto tokenizer = load(state);
    if (!tokenizer) return;
    benchmark::DoNotOptimize(tokenizer->encode(ten_thousand_words()));  // fills the cache
    for (auto _ : state) {
        benchmark::DoNotOptimize(tokenizer->encode(ten_thousand_words()));
    }
    state.counters["words/s"] =
        benchmark::Counter(kWords, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_EncodeTenThousandWordsCold(benchmark::State& state) {
    std::optional<Tokenizer> tokenizer;
    for (auto _ : state) {
        state.PauseTiming();
        tokenizer = load(state);  // a new piece cache
        state.ResumeTiming();
        if (!tokenizer) return;
        benchmark::DoNotOptimize(tokenizer->encode(ten_thousand_words()));
    }
    state.counters["words/s"] =
        benchmark::Counter(kWords, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_DecodeTenThousandWords)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncodeTenThousandWordsWarm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncodeTenThousandWordsCold)->Unit(benchmark::kMillisecond);

}  // namespace
