// Programmatic dependent launches (issue 30): every kernel a decoder step launches, and the token
// choice after it, starts while the kernel before it drains and waits for it before it reads or
// writes what that kernel may touch (the GEMVs load their first weights before the wait). The
// same checkpoint on two CUDA models, one with EARSHOT_CUDA_OLD_KERNELS=pdl (every launch plain):
// the same logits and choices bit for bit, and on the emulated device every grid of a step
// launched dependent on the one model and plainly on the other (the emulator checks every wait
// and holds the previous kernel's writes back until it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/token_choice.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "ggml_writer.h"
#include "old_kernels_variable.h"
#include "temp_dir.h"

namespace {

using earshot::backend::ChoiceRequest;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::backend::RowChoice;
using earshot::backend::RowRules;
using earshot::test::OldKernelsVariable;
using namespace earshot::test::backend_data;  // NOLINT: test mel, tokens

constexpr int64_t kPrefill = 3;

std::vector<float> values(const HostTensor& tensor) {
    const auto v = tensor.f32_values();
    return {v.begin(), v.end()};
}

// Two ranked tokens per row, no filters: choose_tokens and feed_next_step after the step.
ChoiceRequest two_choices(int64_t rows) {
    ChoiceRequest request;
    request.choices = 2;
    request.rows.assign(static_cast<size_t>(rows), RowRules{});
    return request;
}

// A model made with EARSHOT_CUDA_OLD_KERNELS=`old_kernels`, and `pdl` added to it when `plain`.
std::optional<CudaWhisper> make_model(const earshot::model::WhisperCheckpoint& checkpoint,
                                      const std::string& old_kernels, bool plain) {
    const std::string list =
        plain ? (old_kernels.empty() ? "pdl" : old_kernels + ",pdl") : old_kernels;
    const OldKernelsVariable old(list.c_str());
    return std::optional<CudaWhisper>(std::in_place, checkpoint, 1);
}

// The step kernels a step may run: the current ones, and the ones they replaced (one block per
// head, one column per warp, every LayerNorm, linear and cache write alone).
const char* const kStepKernels[] = {"", "attention,gemv,fusion"};

class DependentAndPlainStepKernelsOnCudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        // D = 160: fc2's rows of 640 weights go past the GEMVs' first tile (512 f16 values, 8
        // blocks of 32), so the loads after the wait run too.
        o_ = earshot::model::RandomCheckpointOptions{
            .mels = 80, .d = 160, .heads = 5, .enc_layers = 1, .dec_layers = 2, .vocab = 300};
        o_.frames = 60;
        o_.max_tokens = 10;
        o_.dtype = "f16";
        o_.seed = 47;
        earshot::model::write_random_checkpoint(dir_.path(), o_);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
    }

    earshot::test::TempDir dir_{"earshot-cuda-pdl"};
    earshot::model::RandomCheckpointOptions o_;
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
};

// Listen, prefill and every step, captured and replayed as a graph from the second on, then as a
// beam of three rows, give the same logits bit for bit on both models, and so do the choices of
// the steps that choose their tokens on the device (odd positions).
void expect_the_same_steps(const earshot::model::WhisperCheckpoint& checkpoint,
                           const earshot::model::RandomCheckpointOptions& o,
                           const std::string& old_kernels = "") {
    SCOPED_TRACE("EARSHOT_CUDA_OLD_KERNELS=" + old_kernels + " with and without pdl");
    std::optional<CudaWhisper> plain = make_model(checkpoint, old_kernels, true);
    std::optional<CudaWhisper> dependent = make_model(checkpoint, old_kernels, false);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 5);
    EXPECT_EQ(values(dependent->listen(mel)), values(plain->listen(mel)));
    const auto tokens = random_tokens(1, o.max_tokens, o.vocab, 11);
    EXPECT_EQ(values(dependent->prefill(token_tensor(tokens, 0, kPrefill))),
              values(plain->prefill(token_tensor(tokens, 0, kPrefill))));
    const std::optional<size_t> replays_before = earshot::test::emulator_graph_launches();
    int64_t choosing_steps = 0;
    for (int64_t rows : {1, 3}) {
        if (rows > 1) {
            dependent->expand_batch(rows);
            plain->expand_batch(rows);
        }
        const auto fed = random_tokens(rows, o.max_tokens, o.vocab, rows == 1 ? 12U : 13U);
        for (int64_t pos = kPrefill; pos < o.max_tokens; ++pos) {
            const HostTensor token = token_tensor(fed, pos, pos + 1);
            const auto at = static_cast<int32_t>(pos);
            if (pos % 2 == 0) {
                EXPECT_EQ(values(dependent->step(token, at)), values(plain->step(token, at)))
                    << rows << " rows, step at position " << pos;
                continue;
            }
            ASSERT_TRUE(dependent->chooses_on_device() && plain->chooses_on_device());
            const std::vector<RowChoice> got =
                dependent->step_choosing(token, at, two_choices(rows));
            const std::vector<RowChoice> want = plain->step_choosing(token, at, two_choices(rows));
            ++choosing_steps;
            ASSERT_EQ(got.size(), static_cast<size_t>(rows));
            ASSERT_EQ(want.size(), static_cast<size_t>(rows));
            for (size_t r = 0; r < got.size(); ++r) {
                for (int k = 0; k < 2; ++k) {
                    EXPECT_EQ(got[r].tokens[k], want[r].tokens[k]) << rows << " rows, pos " << pos;
                    EXPECT_EQ(got[r].logits[k], want[r].logits[k]) << rows << " rows, pos " << pos;
                }
                EXPECT_EQ(got[r].log_norm, want[r].log_norm) << rows << " rows, pos " << pos;
            }
        }
    }
    EXPECT_EQ(choosing_steps, 8);  // positions 3, 5, 7 and 9 at 1 and at 3 rows
    if (replays_before) {          // on the emulated device: the steps were replayed as graphs
        EXPECT_GT(*earshot::test::emulator_graph_launches(), *replays_before);
    }
}

TEST_F(DependentAndPlainStepKernelsOnCudaDevice, StepsAndBeamRowsGiveTheSameLogits) {
    expect_the_same_steps(*checkpoint_, o_);
}

// The same on the step kernels the current ones replaced, which launch dependent too.
TEST_F(DependentAndPlainStepKernelsOnCudaDevice, OldStepKernelsGiveTheSameLogits) {
    expect_the_same_steps(*checkpoint_, o_, kStepKernels[1]);
}

// The same with the decoder's linears kept as q8_0 blocks (the block GEMVs, fused and alone,
// load their first blocks before the wait).
TEST_F(DependentAndPlainStepKernelsOnCudaDevice, BlockWeightStepsGiveTheSameLogits) {
    earshot::test::write_ggml_file(
        dir_.path() / "q8_0.bin",
        earshot::test::ggml_twin(checkpoint_->weights, checkpoint_->binding.config,
                                 earshot::checkpoint::GgmlType::q8_0));
    const auto q8 = earshot::model::load_whisper_checkpoint(dir_.path() / "q8_0.bin");
    {
        const CudaWhisper kept(q8);
        ASSERT_EQ(kept.kept_blocks("decoder_layers.0.mlp.fc1.weight"), "q8_0");
        ASSERT_EQ(kept.kept_blocks("decoder_layers.1.self_attn.q_proj.weight"), "q8_0");
    }
    expect_the_same_steps(q8, o_);
}

// The emulated device's counts: grids launched dependent and plainly, and every kernel run
// (grids, cuBLAS calls, device-to-device copies).
struct Runs {
    size_t dependent = 0;
    size_t plain = 0;
    size_t all = 0;
};

std::optional<Runs> runs_now() {
    const auto dependent = earshot::test::emulator_count("earshot_cuda_emulator_dependent_grids");
    const auto plain = earshot::test::emulator_count("earshot_cuda_emulator_plain_grids");
    const auto all = earshot::test::emulator_count("earshot_cuda_emulator_kernel_runs");
    if (!dependent || !plain || !all) return std::nullopt;
    return Runs{*dependent, *plain, *all};
}

Runs since(const Runs& before) {
    const Runs now = *runs_now();
    return {now.dependent - before.dependent, now.plain - before.plain, now.all - before.all};
}

// One model's listen, prefill and steps at 1 and 3 rows, counted (see the test below).
void check_step_launches(const earshot::model::WhisperCheckpoint& checkpoint,
                         const earshot::model::RandomCheckpointOptions& o,
                         const std::string& old_kernels, bool plain) {
    const std::string which =
        "EARSHOT_CUDA_OLD_KERNELS=" + old_kernels + (plain ? " plus pdl" : "");
    std::optional<CudaWhisper> model = make_model(checkpoint, old_kernels, plain);
    const Runs before_listen = *runs_now();
    model->listen(test_mel(1, o.mels, o.frames, 6));
    const auto tokens = random_tokens(1, o.max_tokens, o.vocab, 14);
    model->prefill(token_tensor(tokens, 0, kPrefill));
    const Runs outside = since(before_listen);
    EXPECT_EQ(outside.dependent, 0U) << which << ": listen and prefill";
    EXPECT_GT(outside.plain, 0U) << which;
    const std::optional<size_t> replays_before = earshot::test::emulator_graph_launches();
    size_t step_kernels = 0;  // the kernels of a step() at the rows of the time
    for (int64_t rows : {1, 3}) {
        if (rows > 1) model->expand_batch(rows);
        step_kernels = 0;
        const auto fed = random_tokens(rows, o.max_tokens, o.vocab, 15);
        for (int64_t pos = kPrefill; pos < o.max_tokens; ++pos) {
            const HostTensor token = token_tensor(fed, pos, pos + 1);
            const bool choosing = pos % 2 == 1;
            const Runs before = *runs_now();
            if (choosing) {
                model->step_choosing(token, static_cast<int32_t>(pos), two_choices(rows));
            } else {
                model->step(token, static_cast<int32_t>(pos));
            }
            const Runs step = since(before);
            EXPECT_EQ(plain ? step.plain : step.dependent, step.all)
                << which << ", " << rows << " rows, pos " << pos;
            EXPECT_EQ(plain ? step.dependent : step.plain, 0U)
                << which << ", " << rows << " rows, pos " << pos;
            if (!choosing) {
                EXPECT_GT(step.all, 10U) << which;  // embeddings, 2 layers, logits
                if (step_kernels == 0) step_kernels = step.all;
                EXPECT_EQ(step.all, step_kernels) << which << ", pos " << pos;
            } else if (step_kernels != 0) {
                // The step's kernels, choose_tokens and feed_next_step.
                EXPECT_EQ(step.all, step_kernels + 2) << which << ", pos " << pos;
            }
        }
    }
    // The steps were captured (dependent launches as programmatic edges) and replayed.
    EXPECT_GT(*earshot::test::emulator_graph_launches(), *replays_before) << which;
    EXPECT_EQ(model->graph_capture_failures(), 0) << which;
    std::printf("%s: listen and prefill %zu plain grids, a step %zu %s grids\n", which.c_str(),
                outside.plain, step_kernels, plain ? "plain" : "dependent");
}

// On the emulated device (compute capability 9.0): listen and prefill launch every grid plainly;
// every kernel a step runs (its graph's, replayed, and choose_tokens and feed_next_step after
// it) is a dependent grid, none plain, nothing else launched; with EARSHOT_CUDA_OLD_KERNELS=pdl
// every one is plain. On the current step kernels and on the old ones.
TEST_F(DependentAndPlainStepKernelsOnCudaDevice, EveryKernelOfAStepIsDependentUnlessPdlIsOld) {
    if (!runs_now()) GTEST_SKIP() << "the emulated device counts dependent grids; a GPU does not";
    for (const char* old_kernels : kStepKernels) {
        for (const bool plain : {false, true}) {
            check_step_launches(*checkpoint_, o_, old_kernels, plain);
        }
    }
}

}  // namespace
