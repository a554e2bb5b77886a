// compare_blocks: on the micro model, a CPU run at 1 thread against one at 3 (every block equal,
// bit for bit); on a random model in f32 against its f16 copy, the comparison under a small budget
// (the same errors as with room for every value, values kept only within it, the peak of values
// held exact, a block not kept computed again by compare_block).
#include "earshot/engine/backend/block_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_threads.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using earshot::backend::BlockComparison;
using earshot::backend::BlockError;
using earshot::backend::ComparedRun;
using earshot::backend::ComparisonRequest;
using earshot::backend::HostTensor;
using earshot::backend::KeptValues;
using earshot::backend::PlanBackend;

const earshot::model::WhisperCheckpoint& micro() {
    static const earshot::model::WhisperCheckpoint checkpoint =
        earshot::model::load_whisper_checkpoint(EARSHOT_MICRO_MODEL_DIR);
    return checkpoint;
}

// A log-mel-like input [1, Mels, Frames]: values in [-1, 1], fixed seed.
HostTensor random_mel() {
    const auto& dims = micro().binding.values.dims;
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> value(-1.0F, 1.0F);
    std::vector<float> values(static_cast<size_t>(dims.at("Mels") * dims.at("Frames")));
    for (float& v : values) v = value(gen);
    return HostTensor::f32({1, dims.at("Mels"), dims.at("Frames")}, std::move(values));
}

ComparisonRequest request_with_decoder() {
    ComparisonRequest request;
    request.mel = random_mel();
    request.tokens = {1, 5, 9, 13, 17, 21};
    return request;
}

ComparedRun cpu_run(int threads, const std::string& label) {
    ComparedRun run{&micro(), PlanBackend::cpu, label};
    run.threads = threads;
    return run;
}

TEST(BlockComparison, CpuThreadCountChangesNoBlock) {
    // The pool splits rows, heads and elements, never one sum: every value is computed by the
    // same operations in the same order on 1 thread as on 3, so the runs agree bit for bit.
    // (OpenBLAS's sgemm keeps its own threads, the same in both runs.)
    ComparisonRequest request = request_with_decoder();
    const BlockComparison c = compare_blocks(cpu_run(1, "cpu x1"), cpu_run(3, "cpu x3"), request);
    const auto& dims = micro().binding.values.dims;
    // encoder: conv1d x2 (+ gelu), each layer's forward and its calls, the norm; the decoder's too
    ASSERT_GT(c.blocks.size(), static_cast<size_t>(dims.at("EncoderLayers") * 4));
    std::map<std::string, int> per_entry;
    for (const BlockError& e : c.blocks) {
        ++per_entry[e.entry];
        EXPECT_EQ(e.relative_l2, 0.0) << e.entry << " " << e.name;
        EXPECT_EQ(e.max_abs, 0.0) << e.entry << " " << e.name;
        EXPECT_EQ(e.nonfinite, 0) << e.name;
        EXPECT_GT(e.max_abs_a, 0.0) << e.name;  // a real value, not an empty one
    }
    EXPECT_GT(per_entry["listen"], 0);
    EXPECT_GT(per_entry["prefill"], 0);
}

TEST(BlockComparison, CpuWhisperOwnsAPoolOfItsThreadCount) {
    earshot::backend::CpuWhisper whisper(micro());
    EXPECT_EQ(whisper.threads(), earshot::backend::cpu::ThreadPool::shared_threads());
    whisper.set_threads(3);
    EXPECT_EQ(whisper.threads(), 3);
    whisper.set_threads(0);
    EXPECT_EQ(whisper.threads(), earshot::backend::cpu::ThreadPool::shared_threads());
    EXPECT_THROW(whisper.set_threads(-1), std::invalid_argument);
}

TEST(BlockComparison, ThreadDependentSumWouldBeCaught) {
    // What the comparison would report if a kernel split one sum across threads: each row
    // [0, k) summed in chunks claimed from the pool, the partial sums added in chunk order. The
    // chunk size follows the thread count, so the rounding does too; the error metric sees it.
    // The kernels' way (a whole row per range) gives the same bits on any pool.
    const int64_t rows = 64;
    const int64_t k = 6000;
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> value(-1.0F, 1.0F);
    std::vector<float> x(static_cast<size_t>(rows * k));
    for (float& v : x) v = value(gen);
    const auto split_sum = [&](earshot::backend::cpu::ThreadPool& pool) {
        HostTensor out = HostTensor::f32({rows});
        for (int64_t r = 0; r < rows; ++r) {
            std::map<int64_t, float> partial;  // chunk start -> its sum
            std::mutex lock;
            pool.parallel_for(k, 1, [&](int64_t begin, int64_t end) {
                float s = 0.0F;
                for (int64_t i = begin; i < end; ++i) s += x[static_cast<size_t>(r * k + i)];
                const std::lock_guard guard(lock);
                partial[begin] = s;
            });
            float total = 0.0F;
            for (const auto& [begin, s] : partial) total += s;
            out.f32_values()[static_cast<size_t>(r)] = total;
        }
        return out;
    };
    const auto row_sum = [&](earshot::backend::cpu::ThreadPool& pool) {
        HostTensor out = HostTensor::f32({rows});
        pool.parallel_for(rows, 1, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                float s = 0.0F;
                for (int64_t i = 0; i < k; ++i) s += x[static_cast<size_t>(r * k + i)];
                out.f32_values()[static_cast<size_t>(r)] = s;
            }
        });
        return out;
    };
    earshot::backend::cpu::ThreadPool one(1);
    earshot::backend::cpu::ThreadPool three(3);
    const BlockError split = earshot::backend::tensor_error(split_sum(one), split_sum(three));
    const BlockError whole = earshot::backend::tensor_error(row_sum(one), row_sum(three));
    EXPECT_GT(split.relative_l2, 0.0);
    EXPECT_GT(split.max_abs, 0.0);
    EXPECT_LT(split.relative_l2, 1e-4);  // rounding, not a wrong sum
    EXPECT_EQ(whole.relative_l2, 0.0);
}

// The same random model (D 64, 2 + 2 layers, 200 frames) in f32 and rounded to f16: runs that
// differ in every block by f16's rounding of the weights.
class BudgetedComparison : public ::testing::Test {
protected:
    void SetUp() override {
        earshot::model::RandomCheckpointOptions options;
        options.mels = 80;
        options.d = 64;
        options.heads = 4;
        options.enc_layers = 2;
        options.dec_layers = 2;
        options.vocab = 512;
        options.frames = 200;
        options.max_tokens = 32;
        options.inner = 256;
        options.seed = 31;
        options.dtype = "f32";
        earshot::model::write_random_checkpoint(f32_dir_.path(), options);
        options.dtype = "f16";
        earshot::model::write_random_checkpoint(f16_dir_.path(), options);
        f32_.emplace(earshot::model::load_whisper_checkpoint(f32_dir_.path()));
        f16_.emplace(earshot::model::load_whisper_checkpoint(f16_dir_.path()));
        std::mt19937 gen(11);
        std::uniform_real_distribution<float> value(-1.0F, 1.0F);
        std::vector<float> mel(80 * 200);
        for (float& v : mel) v = value(gen);
        request_.mel = HostTensor::f32({1, 80, 200}, std::move(mel));
        request_.tokens = {3, 7, 11, 100};
        request_.kept = KeptValues::both_runs;
    }

    BlockComparison compare(int64_t budget_bytes) {
        ComparisonRequest request = request_;
        request.budget_bytes = budget_bytes;
        return compare_blocks(a(), b(), request);
    }
    // With room for every value, and with a budget of one byte: computed once for the suite
    // (the checkpoints are written the same way by every test).
    const BlockComparison& wide_comparison() {
        static const BlockComparison comparison = compare(int64_t{1} << 40);
        return comparison;
    }
    const BlockComparison& tiny_comparison() {
        static const BlockComparison comparison = compare(1);
        return comparison;
    }
    ComparedRun a() const { return {&*f32_, PlanBackend::cpu, "f32"}; }
    ComparedRun b() const { return {&*f16_, PlanBackend::cpu, "f16"}; }

    earshot::test::TempDir f32_dir_{"earshot-compare-f32"};
    earshot::test::TempDir f16_dir_{"earshot-compare-f16"};
    std::optional<earshot::model::WhisperCheckpoint> f32_;
    std::optional<earshot::model::WhisperCheckpoint> f16_;
    ComparisonRequest request_;
};

TEST_F(BudgetedComparison, TinyBudgetGivesTheSameErrorsHoldingOneBlockPairAtATime) {
    const BlockComparison& wide = wide_comparison();
    const BlockComparison& tiny = tiny_comparison();
    ASSERT_EQ(wide.blocks.size(), tiny.blocks.size());
    ASSERT_GT(wide.blocks.size(), 10U);
    EXPECT_EQ(wide.passes, 1);
    EXPECT_EQ(tiny.passes, static_cast<int>(tiny.blocks.size()));
    int64_t largest_pair = 0;
    int64_t all_pairs = 0;
    for (size_t i = 0; i < wide.blocks.size(); ++i) {
        const BlockError& x = wide.blocks[i];
        const BlockError& y = tiny.blocks[i];
        EXPECT_EQ(x.entry, y.entry);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.op, y.op);
        EXPECT_GT(x.relative_l2, 0.0) << x.name;  // f16 weights: every block differs
        // Bit-equal: the same values, whichever pass computed them.
        EXPECT_EQ(x.relative_l2, y.relative_l2) << x.name;
        EXPECT_EQ(x.max_abs, y.max_abs) << x.name;
        EXPECT_EQ(x.max_abs_a, y.max_abs_a) << x.name;
        EXPECT_TRUE(x.kept()) << x.name;
        EXPECT_FALSE(y.kept()) << y.name;
        int64_t numel = 1;
        for (const int64_t d : x.shape) numel *= d;
        EXPECT_EQ(x.value_bytes(), 2 * 4 * numel) << x.name;
        largest_pair = std::max(largest_pair, x.value_bytes());
        all_pairs += x.value_bytes();
    }
    // Room for everything: one pass holding every pair, all kept. One byte: one pair at a time,
    // none kept.
    EXPECT_EQ(wide.kept_value_bytes(), all_pairs);
    EXPECT_EQ(wide.peak_value_bytes, all_pairs);
    EXPECT_EQ(tiny.kept_value_bytes(), 0);
    EXPECT_EQ(tiny.peak_value_bytes, largest_pair);
}

TEST_F(BudgetedComparison, PeakStaysWithinTheBudgetAndKeepsAtMostHalf) {
    const BlockComparison& wide = wide_comparison();
    int64_t largest_pair = 0;
    for (const BlockError& e : wide.blocks) largest_pair = std::max(largest_pair, e.value_bytes());
    const int64_t budget = 4 * largest_pair;
    const BlockComparison bounded = compare(budget);
    EXPECT_GT(bounded.passes, 1);
    EXPECT_LT(bounded.passes, static_cast<int>(bounded.blocks.size()));
    EXPECT_LE(bounded.peak_value_bytes, budget);
    EXPECT_GE(bounded.peak_value_bytes, largest_pair);
    EXPECT_LE(bounded.kept_value_bytes(), budget / 2);
    EXPECT_GT(bounded.kept_value_bytes(), 0);
    size_t kept = 0;
    for (size_t i = 0; i < bounded.blocks.size(); ++i) {
        EXPECT_EQ(bounded.blocks[i].relative_l2, wide.blocks[i].relative_l2);
        kept += bounded.blocks[i].kept() ? 1U : 0U;
    }
    EXPECT_GT(kept, 0U);
    EXPECT_LT(kept, bounded.blocks.size());
}

TEST_F(BudgetedComparison, BlockNotKeptIsComputedAgainWithBothValues) {
    const BlockComparison& wide = wide_comparison();
    const BlockComparison& tiny = tiny_comparison();
    // The worst block and one of the decoder's prefill.
    std::vector<size_t> picks = {0};
    for (size_t i = 0; i < tiny.blocks.size(); ++i) {
        if (tiny.blocks[i].entry == "prefill") {
            picks.push_back(i);
            break;
        }
    }
    ASSERT_EQ(picks.size(), 2U);
    for (const size_t i : picks) {
        ASSERT_FALSE(tiny.blocks[i].kept());
        const BlockError again =
            compare_block(a(), b(), request_, tiny.blocks[i].entry, tiny.blocks[i].name);
        const BlockError& kept = wide.blocks[i];
        ASSERT_EQ(again.name, kept.name);
        EXPECT_EQ(again.op, kept.op);
        EXPECT_EQ(again.relative_l2, tiny.blocks[i].relative_l2);
        EXPECT_EQ(again.max_abs, tiny.blocks[i].max_abs);
        ASSERT_EQ(again.value_a.shape(), kept.value_a.shape());
        ASSERT_EQ(again.value_b.shape(), kept.value_b.shape());
        const auto xa = again.value_a.f32_values();
        const auto xb = again.value_b.f32_values();
        const auto ka = kept.value_a.f32_values();
        const auto kb = kept.value_b.f32_values();
        size_t differ = 0;
        for (size_t j = 0; j < xa.size(); ++j) {
            differ += xa[j] != ka[j] || xb[j] != kb[j] ? 1U : 0U;
        }
        EXPECT_EQ(differ, 0U) << kept.name;
    }
    EXPECT_THROW(compare_block(a(), b(), request_, "encode", "encoder_norm.forward"),
                 earshot::backend::TapError);  // this request runs listen and prefill
    EXPECT_THROW(compare_block(a(), b(), request_, "listen", "encoder_layers[9].forward"),
                 earshot::backend::TapError);
}

}  // namespace
