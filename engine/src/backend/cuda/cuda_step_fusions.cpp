// The CUDA module's step fusions (cuda_step_fusions.h): LayerNorm + linears + cache writes as one
// fused GEMV, decided from the plan alone.
#include "backend/cuda/cuda_step_fusions.h"

#include <algorithm>
#include <optional>

#include "backend/cuda/cuda_launch_rules.h"
#include "backend/cuda/cuda_plan_readers.h"

namespace earshot::backend::cuda {

namespace {

using program::OpKind;

bool overlaps(const Slot& a, const Slot& b) {
    if (a.kind == SlotKind::state || b.kind == SlotKind::state) {
        return a.kind == b.kind && a.path == b.path;
    }
    return a.kind == SlotKind::arena && b.kind == SlotKind::arena &&
           a.offset_bytes < b.offset_bytes + b.size_bytes &&
           b.offset_bytes < a.offset_bytes + a.size_bytes;
}

class Fuser {
public:
    Fuser(const ExecutionPlan& plan, std::span<const int32_t> materialized)
        : plan_(plan),
          readers_(plan_readers(plan, materialized)),
          producer_(plan.slots.size(), -1),
          fusions_(plan.steps.size()) {
        for (size_t t = 0; t < plan.steps.size(); ++t) {
            const PlanStep& step = plan.steps[t];
            if (step.output >= 0)
                producer_[static_cast<size_t>(step.output)] = static_cast<int64_t>(t);
        }
    }

    std::vector<StepFusion> run() {
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            const PlanStep& step = plan_.steps[s];
            if (step.kind != OpKind::layer_norm || step.alias) continue;
            if (fusions_[s].role != StepFusion::Role::alone) continue;
            if (auto group = layer_norm_group(static_cast<int64_t>(s))) apply(*group);
        }
        return std::move(fusions_);
    }

private:
    struct Group {
        int64_t layer_norm = -1;
        std::vector<FusedLinearStep> linears;
    };

    const PlanStep& step(int64_t t) const { return plan_.steps[static_cast<size_t>(t)]; }
    const Slot& slot(int32_t id) const { return plan_.slots[static_cast<size_t>(id)]; }
    const std::vector<int64_t>& readers(int32_t id) const {
        return readers_.readers[static_cast<size_t>(id)];
    }
    bool kept(int32_t id) const { return readers_.kept[static_cast<size_t>(id)]; }

    bool touches(int64_t t, const Slot& target) const {
        const PlanStep& s = step(t);
        for (int32_t id : s.inputs) {
            if (id >= 0 && overlaps(slot(id), target)) return true;
        }
        return s.output >= 0 && overlaps(slot(s.output), target);
    }

    // The write_at that is the only use of linear `t`'s output (through a view that splits its
    // heads, when there is one), writing one position of a cache [m, H, T, Dh] with H x Dh = n;
    // -1 when there is none.
    int64_t cache_write_of(int64_t t, int64_t m, int64_t n) const {
        int32_t value = step(t).output;
        if (kept(value) || readers(value).size() != 1) return -1;
        int64_t w = readers(value)[0];
        if (step(w).alias) {
            value = step(w).output;
            if (kept(value) || readers(value).size() != 1) return -1;
            w = readers(value)[0];
        }
        const PlanStep& write = step(w);
        if (write.kind != OpKind::write_at || write.alias || write.inputs.size() < 3 ||
            write.inputs[1] != value || write.inputs[0] == value || write.inputs[2] == value) {
            return -1;
        }
        const auto axis = write.ints.find("axis");
        if (axis == write.ints.end() || axis->second != 2) return -1;
        const Slot& cache = slot(write.inputs[0]);
        const std::vector<int64_t>& vs = slot(value).shape;  // [m, H, 1, Dh]
        if (cache.kind != SlotKind::state || cache.shape.size() != 4 || vs.size() != 4) return -1;
        if (vs[0] != m || vs[2] != 1 || vs[1] * vs[3] != n || cache.shape[0] != m ||
            cache.shape[1] != vs[1] || cache.shape[3] != vs[3]) {
            return -1;
        }
        const Slot& pos = slot(write.inputs[2]);
        if (pos.kind != SlotKind::input || !pos.scalar) return -1;
        return w;
    }

    std::optional<Group> layer_norm_group(int64_t s) const {
        const PlanStep& norm = step(s);
        if (norm.inputs.size() < 3) return std::nullopt;
        const Slot& x = slot(norm.inputs[0]);
        if (x.kind != SlotKind::arena && x.kind != SlotKind::input) return std::nullopt;
        if (slot(norm.inputs[1]).kind != SlotKind::param ||
            slot(norm.inputs[2]).kind != SlotKind::param) {
            return std::nullopt;
        }
        const int64_t k = x.shape.empty() ? 0 : x.shape.back();
        const int64_t m = k > 0 ? element_count(x.shape) / k : 0;
        if (!fused_gemv_fits(m, k)) return std::nullopt;
        const int32_t normed = norm.output;
        const std::vector<int64_t>& users = readers(normed);
        if (kept(normed) || users.empty() || users.size() > static_cast<size_t>(kMaxFusedLinears)) {
            return std::nullopt;
        }
        Group group;
        group.layer_norm = s;
        for (int64_t t : users) {
            const PlanStep& linear = step(t);
            if (linear.kind != OpKind::linear || linear.alias || linear.inputs.size() < 2 ||
                linear.inputs[0] != normed || slot(linear.inputs[1]).kind != SlotKind::param ||
                std::count(linear.inputs.begin(), linear.inputs.end(), normed) != 1) {
                return std::nullopt;
            }
            const int64_t n = slot(linear.inputs[1]).shape.at(0);
            group.linears.push_back({t, cache_write_of(t, m, n)});
        }
        std::sort(
            group.linears.begin(), group.linears.end(),
            [](const FusedLinearStep& a, const FusedLinearStep& b) { return a.step < b.step; });
        if (!safe(group, x)) return std::nullopt;
        return group;
    }

    // Whether launching the whole group at its last linear computes what the plan's order does.
    // (At the first, a step between could overwrite a moved output: the mask's iota in a beam
    // step's first layer takes the bytes q has later.)
    bool safe(const Group& group, const Slot& x) const {
        const int64_t launch = group.linears.back().step;
        std::vector<int64_t> absorbed = {group.layer_norm};
        for (const FusedLinearStep& l : group.linears) {
            absorbed.push_back(l.step);
            if (l.cache_write >= 0) absorbed.push_back(l.cache_write);
        }
        auto runs = [&](int64_t t) {
            return !step(t).alias &&
                   std::find(absorbed.begin(), absorbed.end(), t) == absorbed.end();
        };
        auto untouched = [&](int64_t from, int64_t to, const Slot& target, bool writes_only) {
            for (int64_t t = from + 1; t < to; ++t) {
                if (!runs(t)) continue;
                const int32_t out = step(t).output;
                if (writes_only ? out >= 0 && overlaps(slot(out), target) : touches(t, target)) {
                    return false;
                }
            }
            return true;
        };
        // The LayerNorm's input is still x when the group launches.
        if (!untouched(group.layer_norm, launch, x, true)) return false;
        std::vector<const Slot*> outputs;  // what the group writes into the arena
        for (const FusedLinearStep& l : group.linears) {
            const PlanStep& linear = step(l.step);
            // Bias and residual are ready at the launch and still what the step would read.
            for (size_t i = 1; i < linear.inputs.size(); ++i) {
                if (producer_[static_cast<size_t>(linear.inputs[i])] >= l.step) return false;
                if (!untouched(l.step, launch, slot(linear.inputs[i]), true)) return false;
            }
            if (l.cache_write < 0) {
                // Nothing reads or writes the output between the step's own place and the launch.
                if (!untouched(l.step, launch, slot(linear.output), false)) return false;
                outputs.push_back(&slot(linear.output));
                continue;
            }
            // Nothing touches the cache between the write's own place and the launch.
            const Slot& cache = slot(step(l.cache_write).inputs[0]);
            const int64_t from = std::min(l.cache_write, launch);
            const int64_t to = std::max(l.cache_write, launch);
            if (!untouched(from, to, cache, false)) return false;
        }
        // Blocks write while other blocks still read x and the residuals.
        for (size_t a = 0; a < outputs.size(); ++a) {
            if (overlaps(*outputs[a], x)) return false;
            for (size_t b = a + 1; b < outputs.size(); ++b) {
                if (overlaps(*outputs[a], *outputs[b])) return false;
            }
            for (const FusedLinearStep& l : group.linears) {
                const PlanStep& linear = step(l.step);
                for (size_t i = 2; i < linear.inputs.size(); ++i) {
                    if (overlaps(*outputs[a], slot(linear.inputs[i]))) return false;
                }
            }
        }
        return true;
    }

    void apply(const Group& group) {
        fusions_[static_cast<size_t>(group.layer_norm)].role = StepFusion::Role::skipped;
        for (const FusedLinearStep& l : group.linears) {
            fusions_[static_cast<size_t>(l.step)].role = StepFusion::Role::skipped;
            if (l.cache_write >= 0) {
                fusions_[static_cast<size_t>(l.cache_write)].role = StepFusion::Role::skipped;
            }
        }
        StepFusion& leader = fusions_[static_cast<size_t>(group.linears.back().step)];
        leader.role = StepFusion::Role::fused_gemv;
        leader.layer_norm = group.layer_norm;
        leader.linears = group.linears;
    }

    const ExecutionPlan& plan_;
    PlanReaders readers_;            // [slot] the steps reading it, and whether it must be written
    std::vector<int64_t> producer_;  // [slot] the step writing it, -1 for none
    std::vector<StepFusion> fusions_;
};

}  // namespace

std::vector<StepFusion> plan_step_fusions(const ExecutionPlan& plan,
                                          std::span<const int32_t> materialized) {
    return Fuser(plan, materialized).run();
}

void unfuse_mixed_weights(std::vector<StepFusion>& fusions, const LinearWeightKind& weight_kind) {
    for (StepFusion& fusion : fusions) {
        if (fusion.role != StepFusion::Role::fused_gemv) continue;
        const std::string first = weight_kind(fusion.linears.at(0).step);
        bool alike = true;
        for (const FusedLinearStep& l : fusion.linears)
            alike = alike && weight_kind(l.step) == first;
        if (alike) continue;
        std::vector<int64_t> steps;
        if (fusion.layer_norm >= 0) steps.push_back(fusion.layer_norm);
        for (const FusedLinearStep& l : fusion.linears) {
            steps.push_back(l.step);
            if (l.cache_write >= 0) steps.push_back(l.cache_write);
        }
        for (int64_t t : steps) fusions[static_cast<size_t>(t)] = StepFusion();
    }
}

}  // namespace earshot::backend::cuda
