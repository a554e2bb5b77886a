// The CUDA module's step fusions (backend/cuda/cuda_step_fusions.h) on real plans: which steps a
// decoder step's fused GEMVs absorb, and the hazards that keep a step alone (a value that must
// exist, an input whose bytes the output reuses, rows past the GEMV's).
#include "backend/cuda/cuda_step_fusions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/whisper_plans.h"
#include "earshot/engine/checkpoint/whisper_config.h"
#include "earshot/engine/model/whisper_binding.h"

namespace {

using earshot::backend::ExecutionPlan;
using earshot::backend::PlanStep;
using earshot::backend::WhisperPlans;
using earshot::backend::cuda::plan_step_fusions;
using earshot::backend::cuda::StepFusion;
using earshot::program::OpKind;
using Role = StepFusion::Role;

WhisperPlans& micro_plans() {
    static WhisperPlans plans(earshot::model::bind_whisper(
        earshot::checkpoint::read_whisper_config(EARSHOT_MICRO_MODEL_DIR)));
    return plans;
}

const ExecutionPlan& step_plan(int64_t rows) { return micro_plans().plan("step", rows, {}); }

// The index of the first step of `kind` whose scope starts with `scope`.
int64_t find_step(const ExecutionPlan& plan, OpKind kind, const std::string& scope) {
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const PlanStep& step = plan.steps[s];
        if (step.kind == kind && !step.alias && step.scope.starts_with(scope)) {
            return static_cast<int64_t>(s);
        }
    }
    ADD_FAILURE() << "no step in " << scope;
    return -1;
}

// The first fused GEMV of three linears (layer 0's q, k and v), launched at the last of them.
int64_t first_qkv(const std::vector<StepFusion>& fusions) {
    for (size_t s = 0; s < fusions.size(); ++s) {
        if (fusions[s].role == Role::fused_gemv && fusions[s].linears.size() == 3) {
            return static_cast<int64_t>(s);
        }
    }
    ADD_FAILURE() << "no fused q, k and v";
    return -1;
}

TEST(CudaStepFusions, AStepLayerIsThreeFusedGemvsWithTheirNormsAndCacheWrites) {
    const ExecutionPlan& plan = step_plan(1);
    const std::vector<StepFusion> fusions = plan_step_fusions(plan);
    ASSERT_EQ(fusions.size(), plan.steps.size());
    int leaders = 0;
    int cache_writes = 0;
    int norms = 0;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const StepFusion& f = fusions[s];
        if (f.role != Role::fused_gemv) continue;
        ++leaders;
        ASSERT_GE(f.layer_norm, 0);
        EXPECT_EQ(plan.steps[static_cast<size_t>(f.layer_norm)].kind, OpKind::layer_norm);
        EXPECT_EQ(fusions[static_cast<size_t>(f.layer_norm)].role, Role::skipped);
        EXPECT_EQ(f.linears.back().step, static_cast<int64_t>(s));
        ++norms;
        for (const auto& l : f.linears) {
            EXPECT_EQ(plan.steps[static_cast<size_t>(l.step)].kind, OpKind::linear);
            if (l.cache_write < 0) continue;
            ++cache_writes;
            EXPECT_EQ(plan.steps[static_cast<size_t>(l.cache_write)].kind, OpKind::write_at);
            EXPECT_EQ(fusions[static_cast<size_t>(l.cache_write)].role, Role::skipped);
        }
    }
    // Two decoder layers: (q, k, v), cross q, fc1 each; every self-attention cache write.
    EXPECT_EQ(leaders, 2 * 3);
    EXPECT_EQ(norms, 2 * 3);
    EXPECT_EQ(cache_writes, 2 * 2);
    const int64_t qkv = first_qkv(fusions);
    ASSERT_GE(qkv, 0);
    EXPECT_TRUE(plan.steps[static_cast<size_t>(qkv)].scope.starts_with("decoder_layers.0"));
    // Keys and values go into the caches; q is written for the attention.
    EXPECT_GE(fusions[static_cast<size_t>(qkv)].linears[0].cache_write, 0);
    EXPECT_GE(fusions[static_cast<size_t>(qkv)].linears[1].cache_write, 0);
    EXPECT_EQ(fusions[static_cast<size_t>(qkv)].linears[2].cache_write, -1);
    // A beam of five rows fuses the same way.
    int beam_leaders = 0;
    for (const StepFusion& f : plan_step_fusions(step_plan(5))) {
        beam_leaders += f.role == Role::fused_gemv ? 1 : 0;
    }
    EXPECT_EQ(beam_leaders, 2 * 3);
}

// The final norm feeds the head, but the logits take the arena bytes of the norm's input (dead
// after the norm in the plan's order): the fused GEMV's blocks would write logits while others
// still read x, so the norm and the head stay separate.
TEST(CudaStepFusions, TheHeadKeepsItsNormWhereTheLogitsReuseTheNormsInputBytes) {
    const ExecutionPlan& plan = step_plan(1);
    const std::vector<StepFusion> fusions = plan_step_fusions(plan);
    const int64_t norm = find_step(plan, OpKind::layer_norm, "decoder_norm");
    ASSERT_GE(norm, 0);
    EXPECT_EQ(fusions[static_cast<size_t>(norm)].role, Role::alone);
    const auto& x =
        plan.slots[static_cast<size_t>(plan.steps[static_cast<size_t>(norm)].inputs[0])];
    const auto& logits = plan.slots[static_cast<size_t>(plan.outputs.at(0))];
    EXPECT_LT(logits.offset_bytes, x.offset_bytes + x.size_bytes);
    EXPECT_LT(x.offset_bytes, logits.offset_bytes + logits.size_bytes);
}

// A value that must exist (a tap on the norm's output, or on the keys before the cache) is
// written: the group that would absorb it runs unfused.
TEST(CudaStepFusions, AMaterialisedValueKeepsItsStep) {
    const ExecutionPlan& plan = step_plan(1);
    const int64_t norm = find_step(plan, OpKind::layer_norm, "decoder_layers.1");
    ASSERT_GE(norm, 0);
    const int32_t normed = plan.steps[static_cast<size_t>(norm)].output;
    const std::vector<int32_t> tapped = {normed};
    const std::vector<StepFusion> fusions = plan_step_fusions(plan, tapped);
    EXPECT_EQ(fusions[static_cast<size_t>(norm)].role, Role::alone);
    int leaders = 0;
    for (const StepFusion& f : fusions) leaders += f.role == Role::fused_gemv ? 1 : 0;
    EXPECT_EQ(leaders, 2 * 3 - 1);

    const std::vector<StepFusion> all = plan_step_fusions(plan);
    const StepFusion& qkv = all[static_cast<size_t>(first_qkv(all))];
    ASSERT_EQ(qkv.linears.size(), 3U);
    ASSERT_GE(qkv.linears[0].cache_write, 0);
    const int32_t keys = plan.steps[static_cast<size_t>(qkv.linears[0].step)].output;
    const std::vector<int32_t> keys_tapped = {keys};
    const std::vector<StepFusion> with_keys = plan_step_fusions(plan, keys_tapped);
    // The keys' own write_at then reads them after their linear, so that group cannot launch at
    // q: its norm, linears and cache writes all run alone; the other layer still fuses.
    EXPECT_EQ(with_keys[static_cast<size_t>(qkv.linears.back().step)].role, Role::alone);
    EXPECT_EQ(with_keys[static_cast<size_t>(qkv.layer_norm)].role, Role::alone);
    EXPECT_EQ(with_keys[static_cast<size_t>(qkv.linears[0].cache_write)].role, Role::alone);
    EXPECT_EQ(with_keys[static_cast<size_t>(qkv.linears[1].cache_write)].role, Role::alone);
    int with_keys_leaders = 0;
    for (const StepFusion& f : with_keys) with_keys_leaders += f.role == Role::fused_gemv ? 1 : 0;
    EXPECT_EQ(with_keys_leaders, 2 * 3 - 1);
}

// Nine rows are past the GEMV (cuBLAS runs them): nothing fuses; nor in the encoder.
TEST(CudaStepFusions, RowsPastTheGemvAndTheEncoderStayUnfused) {
    for (const StepFusion& f : plan_step_fusions(step_plan(9))) {
        EXPECT_EQ(f.role, Role::alone);
    }
    for (const StepFusion& f : plan_step_fusions(micro_plans().plan("encode", 1, {{"B", 1}}))) {
        EXPECT_EQ(f.role, Role::alone);
    }
}

// A group whose linears' weights are stored differently (one of q, k, v as q5_0 blocks) goes back
// to separate launches, every step of it alone; alike weights (all blocks) keep every group.
TEST(CudaStepFusions, MixedWeightsUnfuseTheirGroupOnly) {
    const ExecutionPlan& plan = step_plan(1);
    const std::vector<StepFusion> fused = plan_step_fusions(plan);
    const int64_t qkv = first_qkv(fused);
    ASSERT_GE(qkv, 0);
    const StepFusion group = fused[static_cast<size_t>(qkv)];
    const int64_t odd = group.linears[1].step;  // k

    std::vector<StepFusion> alike = fused;
    earshot::backend::cuda::unfuse_mixed_weights(alike,
                                                 [](int64_t) { return std::string("q5_0"); });
    for (size_t s = 0; s < fused.size(); ++s) EXPECT_EQ(alike[s].role, fused[s].role) << s;

    std::vector<StepFusion> mixed = fused;
    earshot::backend::cuda::unfuse_mixed_weights(
        mixed, [odd](int64_t t) { return t == odd ? std::string() : std::string("q5_0"); });
    EXPECT_EQ(mixed[static_cast<size_t>(group.layer_norm)].role, Role::alone);
    for (const auto& l : group.linears) {
        EXPECT_EQ(mixed[static_cast<size_t>(l.step)].role, Role::alone);
        EXPECT_TRUE(mixed[static_cast<size_t>(l.step)].linears.empty());
        if (l.cache_write >= 0) {
            EXPECT_EQ(mixed[static_cast<size_t>(l.cache_write)].role, Role::alone);
        }
    }
    int fused_before = 0;
    int fused_after = 0;
    for (size_t s = 0; s < fused.size(); ++s) {
        fused_before += fused[s].role == Role::fused_gemv ? 1 : 0;
        fused_after += mixed[s].role == Role::fused_gemv ? 1 : 0;
    }
    EXPECT_EQ(fused_after, fused_before - 1);  // every other group kept
}

}  // namespace
