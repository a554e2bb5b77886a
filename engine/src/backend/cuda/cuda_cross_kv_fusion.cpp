// listen's cross keys and values fused (cuda_cross_kv_fusion.h): each cache's linear, split and
// write recognised in the plan and checked, the contiguous run of them launched at its last write.
#include "backend/cuda/cuda_cross_kv_fusion.h"

#include <algorithm>
#include <optional>
#include <string>

#include "backend/cuda/cuda_launch_rules.h"
#include "backend/cuda/cuda_plan_readers.h"

namespace earshot::backend::cuda {

namespace {

using program::OpKind;

// The caches' positions axis ([Batch, Heads, positions, D / Heads]).
constexpr int64_t kPositionAxis = 2;

class CrossKvFuser {
public:
    CrossKvFuser(const ExecutionPlan& plan, std::vector<StepFusion>& fusions,
                 const LinearWeightKind& weight_kind, std::span<const int32_t> materialized)
        : plan_(plan),
          fusions_(fusions),
          weight_kind_(weight_kind),
          readers_(plan_readers(plan, materialized)) {}

    void run() {
        // Runs of writes of one x, their steps contiguous: each run launched at its last write.
        std::vector<CrossKvWrite> group;
        int32_t group_x = -1;
        auto close = [&] {
            if (!group.empty()) apply(group);
            group.clear();
            group_x = -1;
        };
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            const PlanStep& linear = plan_.steps[s];
            if (linear.alias) continue;
            const std::optional<CrossKvWrite> write = cross_write(static_cast<int64_t>(s));
            if (!write) {
                // Any other step ends the run (its steps must be contiguous).
                const bool member =
                    !group.empty() && (static_cast<int64_t>(s) == group.back().split ||
                                       static_cast<int64_t>(s) == group.back().write);
                if (!member) close();
                continue;
            }
            if (!group.empty() && (!same_bytes(linear.inputs[0], group_x) ||
                                   static_cast<int64_t>(s) != next_after(group.back().write))) {
                close();
            }
            group_x = linear.inputs[0];
            group.push_back(*write);
        }
        close();
    }

private:
    const PlanStep& step(int64_t t) const { return plan_.steps[static_cast<size_t>(t)]; }
    const Slot& slot(int32_t id) const { return plan_.slots[static_cast<size_t>(id)]; }
    bool alone(int64_t t) const {
        return fusions_[static_cast<size_t>(t)].role == StepFusion::Role::alone;
    }

    // Whether slots a and b are the same bytes (one value, or a view of it: each layer's listen
    // hands the audio states on to the next).
    bool same_bytes(int32_t a, int32_t b) const {
        if (a == b) return true;
        const Slot& x = slot(a);
        const Slot& y = slot(b);
        if (x.kind != y.kind || x.shape != y.shape) return false;
        if (x.kind == SlotKind::arena) return x.offset_bytes == y.offset_bytes;
        return x.kind == SlotKind::input && x.index == y.index;
    }

    // The first step after `t` that is not a view.
    int64_t next_after(int64_t t) const {
        int64_t n = t + 1;
        while (n < static_cast<int64_t>(plan_.steps.size()) && step(n).alias) ++n;
        return n;
    }

    // The one step reading `value` (not kept), of `kind`, not a view, as input `input`; -1
    // otherwise.
    int64_t only_reader(int32_t value, OpKind kind, size_t input) const {
        const std::vector<int64_t>& users = readers_.readers[static_cast<size_t>(value)];
        if (readers_.kept[static_cast<size_t>(value)] || users.size() != 1) return -1;
        const int64_t t = users[0];
        const PlanStep& r = step(t);
        if (r.kind != kind || r.alias || !alone(t) || r.inputs.size() <= input ||
            r.inputs[input] != value) {
            return -1;
        }
        if (std::count(r.inputs.begin(), r.inputs.end(), value) != 1) return -1;
        return t;
    }

    // Step t as the linear of a cross cache write: linear -> split_heads -> write_span into a
    // `.cross_k` / `.cross_v` cache, right after one another.
    std::optional<CrossKvWrite> cross_write(int64_t t) const {
        const PlanStep& l = step(t);
        if (l.kind != OpKind::linear || !alone(t) || l.inputs.size() < 2) return std::nullopt;
        if (linear_gelu_epilogue(l) || linear_residual_input(l)) return std::nullopt;
        const Slot& x = slot(l.inputs[0]);
        const Slot& w = slot(l.inputs[1]);
        if (x.shape.size() != 3) return std::nullopt;  // [B, A, D]
        const int64_t d = x.shape[2];
        if (w.kind != SlotKind::param || w.shape != std::vector<int64_t>{d, d}) return std::nullopt;
        if (weight_kind_ && !weight_kind_(t).empty()) return std::nullopt;
        if (linear_path(x.shape[0] * x.shape[1]) != LinearPath::gemm) return std::nullopt;
        const int64_t split = only_reader(l.output, OpKind::split_heads, 0);
        if (split < 0 || split != next_after(t)) return std::nullopt;
        const std::vector<int64_t>& hs = slot(step(split).output).shape;  // [B, H, A, Dh]
        if (hs.size() != 4 || hs[0] != x.shape[0] || hs[2] != x.shape[1] || hs[1] * hs[3] != d)
            return std::nullopt;
        const int64_t write = only_reader(step(split).output, OpKind::write_span, 1);
        if (write < 0 || write != next_after(split)) return std::nullopt;
        const PlanStep& ws = step(write);
        const Slot& cache = slot(ws.inputs[0]);  // [B, H, Audio, Dh] f16
        if (cache.kind != SlotKind::state ||
            !(cache.path.ends_with(".cross_k") || cache.path.ends_with(".cross_v"))) {
            return std::nullopt;
        }
        if (ws.inputs.size() > 2 || ws.ints.count("axis") == 0 ||
            ws.ints.at("axis") != kPositionAxis || ws.ints.count("start") == 0) {
            return std::nullopt;
        }
        const int64_t start = ws.ints.at("start");
        const std::vector<int64_t>& cs = cache.shape;
        if (cs.size() != 4 || cs[0] != hs[0] || cs[1] != hs[1] || cs[3] != hs[3] || start < 0 ||
            start + hs[2] > cs[2]) {
            return std::nullopt;
        }
        return CrossKvWrite{t, split, write};
    }

    void apply(const std::vector<CrossKvWrite>& group) {
        for (const CrossKvWrite& w : group) {
            for (int64_t t : {w.linear, w.split, w.write})
                fusions_[static_cast<size_t>(t)].role = StepFusion::Role::skipped;
        }
        StepFusion& leader = fusions_[static_cast<size_t>(group.back().write)];
        leader.role = StepFusion::Role::cross_kv;
        leader.cross_kv = group;
    }

    const ExecutionPlan& plan_;
    std::vector<StepFusion>& fusions_;
    const LinearWeightKind& weight_kind_;
    PlanReaders readers_;  // [slot] the steps reading it, and whether it must be written
};

}  // namespace

void apply_cross_kv_fusions(const ExecutionPlan& plan, std::vector<StepFusion>& fusions,
                            const LinearWeightKind& weight_kind,
                            std::span<const int32_t> materialized) {
    if (fusions.empty()) fusions.resize(plan.steps.size());
    CrossKvFuser(plan, fusions, weight_kind, materialized).run();
}

bool cross_kv_one_gemm(const ExecutionPlan& plan, const StepFusion& fusion) {
    if (fusion.role != StepFusion::Role::cross_kv || fusion.cross_kv.empty()) return false;
    auto step = [&](int64_t t) -> const PlanStep& { return plan.steps[static_cast<size_t>(t)]; };
    auto cache = [&](const CrossKvWrite& w) -> const Slot& {
        return plan.slots[static_cast<size_t>(step(w.write).inputs.at(0))];
    };
    const CrossKvWrite& first = fusion.cross_kv.front();
    const std::vector<int64_t>& xs =
        plan.slots[static_cast<size_t>(step(first.linear).inputs.at(0))].shape;  // [B, A, D]
    if (xs.at(0) != 1) return false;
    const int64_t start = step(first.write).ints.at("start");
    return std::all_of(fusion.cross_kv.begin(), fusion.cross_kv.end(), [&](const CrossKvWrite& w) {
        return cache(w).shape == cache(first).shape && step(w.write).ints.at("start") == start;
    });
}

int64_t cross_kv_scratch_bytes(const ExecutionPlan& plan, const StepFusion& fusion) {
    if (fusion.role != StepFusion::Role::cross_kv || fusion.cross_kv.empty()) return 0;
    const PlanStep& linear = plan.steps[static_cast<size_t>(fusion.cross_kv.front().linear)];
    const int64_t bytes =
        element_count(plan.slots[static_cast<size_t>(linear.inputs.at(0))].shape) * 2;
    return (bytes + 255) / 256 * 256;
}

}  // namespace earshot::backend::cuda
