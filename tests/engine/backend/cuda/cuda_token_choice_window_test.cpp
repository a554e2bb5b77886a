// Token choice on the device in whole windows: the embedded micro model decoded greedily and with
// a beam of 5, each step's tokens chosen on the device, against the same device logits chosen on
// the host (EARSHOT_CUDA_OLD_KERNELS=host_selection): the same tokens and scores. And what a step
// copies back: its rows' RowChoice values, not the logits. On the emulated module here (which
// counts the bytes) and on a GPU (*OnCudaDevice).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_device.h"
#include "earshot/engine/backend/token_choice.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/window_decoder.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "micro_model.h"
#include "npz_reader.h"
#include "old_kernels_variable.h"
#include "source_paths.h"

namespace {

using earshot::backend::HostTensor;
using earshot::test::OldKernelsVariable;

class TokenChoiceWindowsOnCudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        const auto npz =
            earshot::test::read_npz(earshot::test::golden_dir() / "micro" / "parity.npz");
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(kModelDir));
        const earshot::test::NpyArray& mel = npz.at("mel");  // [80, Frames]
        mel_ = HostTensor::f32({1, mel.shape[0], mel.shape[1]}, mel.as_f32());
    }

    const std::filesystem::path kModelDir = earshot::test::micro_model_dir();
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
    HostTensor mel_;
};

bool near(double got, double want) {
    return std::abs(got - want) <= 1e-5 * std::max(1.0, std::abs(want));
}

// The host-selecting model also launches its steps plainly (pdl): the windows whose steps are
// programmatic dependent launches (on a device of compute capability 9.0, as the emulated one)
// choose the same tokens as those launched plainly.
TEST_F(TokenChoiceWindowsOnCudaDevice, GreedyAndBeamWindowsMatchTheHostSelection) {
    const auto tok = earshot::tokenizer::Tokenizer::load(
        kModelDir, checkpoint_->binding.values.dims.at("Vocab"));
    auto on_device = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    std::unique_ptr<earshot::decoding::DecoderModel> on_host;
    {
        const OldKernelsVariable old("host_selection,pdl");
        on_host = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    }
    for (int beam : {1, 5}) {
        earshot::decoding::DecodingOptions options;
        options.beam_size = beam;
        std::mt19937_64 rng_host(1);
        std::mt19937_64 rng_device(1);
        const auto want =
            earshot::decoding::decode_window(*on_host, tok, mel_, {}, "", options, 0.0, rng_host);
        const auto got = earshot::decoding::decode_window(*on_device, tok, mel_, {}, "", options,
                                                          0.0, rng_device);
        std::printf("beam %d: %zu tokens, avg logprob host %.9g device %.9g\n", beam,
                    want.tokens.size(), want.avg_logprob, got.avg_logprob);
        EXPECT_GT(want.tokens.size(), 3U) << "beam " << beam;
        EXPECT_EQ(got.tokens, want.tokens) << "beam " << beam;
        EXPECT_PRED2(near, got.avg_logprob, want.avg_logprob) << "beam " << beam;
        ASSERT_EQ(got.token_logprobs.size(), want.token_logprobs.size()) << "beam " << beam;
        for (size_t i = 0; i < want.token_logprobs.size(); ++i) {
            EXPECT_PRED2(near, got.token_logprobs[i], want.token_logprobs[i])
                << "beam " << beam << ", token " << i;
        }
    }
}

// A step with its tokens chosen on the device copies back sizeof(RowChoice) (160) bytes a row;
// with host_selection it copies the logits, 4 x Vocab bytes a row.
TEST_F(TokenChoiceWindowsOnCudaDevice, AStepCopiesBackItsChoicesNotItsLogits) {
    const auto copied = [] {
        return earshot::test::emulator_count("earshot_cuda_emulator_bytes_to_host");
    };
    if (!copied()) GTEST_SKIP() << "the emulated device counts copies; a GPU does not";
    earshot::decoding::LogitFilterSettings filters;
    filters.ids = {.blank = 220, .eot = 50257, .no_timestamps = 50363, .timestamp_begin = 50364};
    filters.suppress = {50258, 50359, 50360};
    const int64_t vocab = checkpoint_->binding.values.dims.at("Vocab");
    for (const bool host_selection : {false, true}) {
        std::optional<OldKernelsVariable> old;
        if (host_selection) old.emplace("host_selection");
        auto model = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
        // No listen: the cross caches stay zero, which is all counting bytes needs.
        model->prefill(HostTensor::i32({1, 1}, {50258}));
        for (const int64_t rows : {1, 5}) {
            if (rows > 1) model->expand(rows);
            const std::vector<int32_t> sampled;
            earshot::decoding::ChoiceSpec spec{.filters = &filters, .sampled = {}, .choices = 6};
            for (int64_t r = 0; r < rows; ++r) spec.sampled.emplace_back(sampled);
            const size_t before = *copied();
            const auto choices = model->step_choosing(
                HostTensor::i32({rows, 1}, std::vector<int32_t>(static_cast<size_t>(rows), 220)), 1,
                spec);
            const size_t bytes = *copied() - before;
            const int64_t want = host_selection
                                     ? rows * vocab * 4
                                     : rows * int64_t{sizeof(earshot::backend::RowChoice)};
            std::printf("%s, %lld rows: %zu bytes back\n",
                        host_selection ? "host selection" : "device selection",
                        static_cast<long long>(rows), bytes);
            EXPECT_EQ(static_cast<int64_t>(bytes), want) << rows << " rows";
            ASSERT_EQ(choices.size(), static_cast<size_t>(rows));
            EXPECT_EQ(choices[0].tokens.size(), 6U);
        }
    }
}

// A step with its tokens chosen on the device leaves each row's best token and pos + 1 in the
// next step's inputs on the device (issue 30): fed those (greedy), the next step copies up only
// its rows' RowRules; fed other tokens (a beam's), the tokens too, and pos never; all of it from
// pinned memory. At 1 row the choices equal the host selection's, step by step.
TEST_F(TokenChoiceWindowsOnCudaDevice, AGreedyStepLeavesItsTokenAndPosOnTheDevice) {
    const auto up = [] {
        return earshot::test::emulator_count("earshot_cuda_emulator_bytes_to_device");
    };
    const auto pageable = [] {
        return earshot::test::emulator_count("earshot_cuda_emulator_pageable_bytes_to_device");
    };
    if (!up()) GTEST_SKIP() << "the emulated device counts copies; a GPU does not";
    earshot::decoding::LogitFilterSettings filters;
    filters.ids = {.blank = 220, .eot = 50257, .no_timestamps = 50363, .timestamp_begin = 50364};
    filters.suppress = {50258, 50359, 50360};
    auto on_device = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    std::unique_ptr<earshot::decoding::DecoderModel> on_host;
    {
        const OldKernelsVariable old("host_selection");
        on_host = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    }
    const auto rules_bytes = static_cast<int64_t>(sizeof(earshot::backend::RowRules));
    for (const int64_t rows : {1, 2}) {
        // No listen: the cross caches stay zero, the same in both models. The host selection
        // is compared at 1 row (the slow windows compare beams); 2 rows count bytes, 3 steps.
        const bool compared = rows == 1;
        for (auto* model : {on_device.get(), on_host.get()}) {
            if (!compared && model == on_host.get()) continue;
            model->prefill(HostTensor::i32({1, 1}, {50258}));
            if (rows > 1) model->expand(rows);
        }
        std::vector<std::vector<int32_t>> sampled(static_cast<size_t>(rows));
        std::vector<int32_t> next(static_cast<size_t>(rows), 220);
        for (int step = 0; step < (compared ? 4 : 3); ++step) {
            earshot::decoding::ChoiceSpec spec{.filters = &filters, .sampled = {}, .choices = 2};
            for (const auto& row : sampled) spec.sampled.emplace_back(row);
            const int32_t pos = 1 + step;
            const size_t up_before = *up();
            const size_t pageable_before = *pageable();
            const auto got = on_device->step_choosing(HostTensor::i32({rows, 1}, next), pos, spec);
            const auto up_bytes = static_cast<int64_t>(*up() - up_before);
            const auto pageable_bytes = static_cast<int64_t>(*pageable() - pageable_before);
            ASSERT_EQ(got.size(), static_cast<size_t>(rows));
            const auto want =
                compared ? on_host->step_choosing(HostTensor::i32({rows, 1}, next), pos, spec)
                         : got;
            ASSERT_EQ(want.size(), static_cast<size_t>(rows));
            for (size_t r = 0; r < got.size(); ++r) {
                EXPECT_EQ(got[r].tokens, want[r].tokens) << rows << " rows, step " << step;
                for (size_t k = 0; k < got[r].logprobs.size(); ++k) {
                    EXPECT_PRED2(near, got[r].logprobs[k], want[r].logprobs[k])
                        << rows << " rows, step " << step << ", row " << r;
                }
            }
            // Step 2 feeds each row's second choice, as a beam may; the others the best.
            const bool best_fed = step != 2;
            std::printf("%lld rows, step %d (%s): %lld bytes up, %lld of them pageable\n",
                        static_cast<long long>(rows), step,
                        step == 0  ? "after prefill"
                        : best_fed ? "best tokens fed"
                                   : "others fed",
                        static_cast<long long>(up_bytes), static_cast<long long>(pageable_bytes));
            if (step > 0) {
                EXPECT_EQ(pageable_bytes, 0) << rows << " rows, step " << step;
                EXPECT_EQ(up_bytes, rows * rules_bytes + (best_fed ? 0 : rows * 4))
                    << rows << " rows, step " << step;
            }
            const size_t pick = step == 1 ? 1 : 0;  // what the next step feeds
            for (size_t r = 0; r < got.size(); ++r) {
                next[r] = got[r].tokens.at(pick);
                sampled[r].push_back(next[r]);
            }
        }
    }
}

}  // namespace
