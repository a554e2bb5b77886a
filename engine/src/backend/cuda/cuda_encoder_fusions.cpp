// The CUDA module's encoder-layer fusions (cuda_encoder_fusions.h): a LayerNorm and what reads it
// up to the residual, recognised in the plan and checked, launched as one group at its last step.
#include "backend/cuda/cuda_encoder_fusions.h"

#include <algorithm>
#include <optional>
#include <string>

#include "backend/cuda/cuda_launch_rules.h"
#include "backend/cuda/cuda_plan_readers.h"

namespace earshot::backend::cuda {

namespace {

using program::OpKind;

int64_t align_256(int64_t n) { return (n + 255) / 256 * 256; }

// How a plan step's scope names an encoder layer: `encoder_layers.3.forward > ...`.
constexpr const char* kEncoderScope = "encoder_layers.";

class EncoderFuser {
public:
    EncoderFuser(const ExecutionPlan& plan, std::vector<StepFusion>& fusions,
                 const LinearWeightKind& weight_kind, std::span<const int32_t> materialized)
        : plan_(plan),
          fusions_(fusions),
          weight_kind_(weight_kind),
          readers_(plan_readers(plan, materialized)) {}

    void run() {
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            const PlanStep& norm = plan_.steps[s];
            if (norm.kind != OpKind::layer_norm || norm.alias || !alone(static_cast<int64_t>(s)))
                continue;
            // The encoder's layers only: a decoder's (prefill, a step of many rows) stay as
            // they are.
            if (!norm.scope.starts_with(kEncoderScope) &&
                norm.scope.find(std::string(" > ") + kEncoderScope) == std::string::npos) {
                continue;
            }
            if (auto group = attention_half(static_cast<int64_t>(s))) {
                apply(*group, group->out_proj, StepFusion::Role::encoder_attention);
            } else if (auto mlp = mlp_half(static_cast<int64_t>(s))) {
                apply(*mlp, mlp->fc2, StepFusion::Role::encoder_mlp);
            }
        }
    }

private:
    const PlanStep& step(int64_t t) const { return plan_.steps[static_cast<size_t>(t)]; }
    const Slot& slot(int32_t id) const { return plan_.slots[static_cast<size_t>(id)]; }
    bool alone(int64_t t) const {
        return fusions_[static_cast<size_t>(t)].role == StepFusion::Role::alone;
    }

    // The one step reading `value` (not kept), of `kind`, not a view; -1 otherwise.
    int64_t only_reader(int32_t value, OpKind kind) const {
        const std::vector<int64_t>& users = readers_.readers[static_cast<size_t>(value)];
        if (readers_.kept[static_cast<size_t>(value)] || users.size() != 1) return -1;
        const int64_t t = users[0];
        if (step(t).kind != kind || step(t).alias || !alone(t)) return -1;
        if (std::count(step(t).inputs.begin(), step(t).inputs.end(), value) != 1) return -1;
        return t;
    }

    // A linear on the GEMM path reading x [m, k] as input 0 with an f16 weight [n, k].
    bool gemm_linear(int64_t t, int32_t x, int64_t k, int64_t n) const {
        const PlanStep& l = step(t);
        if (l.kind != OpKind::linear || l.alias || l.inputs.size() < 2 || l.inputs[0] != x ||
            !alone(t)) {
            return false;
        }
        const Slot& w = slot(l.inputs[1]);
        if (w.kind != SlotKind::param || w.shape != std::vector<int64_t>{n, k}) return false;
        if (weight_kind_ && !weight_kind_(t).empty()) return false;
        const int64_t m = element_count(slot(x).shape) / k;
        return linear_path(m) == LinearPath::gemm;
    }

    // Every step that runs between `first` and `last` is one of `members`.
    bool contiguous(int64_t first, int64_t last, const std::vector<int64_t>& members) const {
        for (int64_t t = first + 1; t < last; ++t) {
            if (step(t).alias) continue;
            if (std::find(members.begin(), members.end(), t) == members.end()) return false;
        }
        return true;
    }

    // cuBLASLt reads the residual as C while it writes D: the same bytes or apart.
    bool residual_fits(int64_t t) const {
        const auto residual = linear_residual_input(step(t));
        if (!residual) return false;
        const Slot& c = slot(step(t).inputs.at(*residual));
        const Slot& d = slot(step(t).output);
        if (c.kind != SlotKind::arena && c.kind != SlotKind::input) return false;
        if (c.shape != d.shape) return false;
        if (c.kind != SlotKind::arena || d.kind != SlotKind::arena) return true;
        const bool apart = c.offset_bytes + c.size_bytes <= d.offset_bytes ||
                           d.offset_bytes + d.size_bytes <= c.offset_bytes;
        return apart || c.offset_bytes == d.offset_bytes;
    }

    std::optional<EncoderLayerSteps> attention_half(int64_t s) const {
        const PlanStep& norm = step(s);
        if (norm.inputs.size() < 3) return std::nullopt;
        const Slot& x = slot(norm.inputs[0]);
        if (x.shape.size() != 3) return std::nullopt;  // [B, T, D]
        const int64_t d = x.shape[2];
        const int32_t normed = norm.output;
        const std::vector<int64_t>& users = readers_.readers[static_cast<size_t>(normed)];
        if (readers_.kept[static_cast<size_t>(normed)] || users.size() != 3) return std::nullopt;
        std::vector<int64_t> members;
        std::vector<std::pair<int64_t, int32_t>> projected;  // linear, its split heads
        int64_t attention = -1;
        for (int64_t t : users) {
            if (!gemm_linear(t, normed, d, d) || linear_gelu_epilogue(step(t)) ||
                linear_residual_input(step(t))) {
                return std::nullopt;
            }
            const int64_t split = only_reader(step(t).output, OpKind::split_heads);
            if (split < 0) return std::nullopt;
            const int64_t a = only_reader(step(split).output, OpKind::attention);
            if (a < 0 || (attention >= 0 && a != attention)) return std::nullopt;
            attention = a;
            members.insert(members.end(), {t, split});
            projected.emplace_back(t, step(split).output);
        }
        const PlanStep& attend = step(attention);
        if (attend.inputs.size() < 3 ||
            (attend.inputs.size() > 3 && slot(attend.inputs[3]).kind != SlotKind::none) ||
            attend.ints.count("scale_dim") == 0) {
            return std::nullopt;
        }
        EncoderLayerSteps group;
        group.layer_norm = s;
        group.attention = attention;
        for (const auto& [linear, heads] : projected) {
            if (heads == attend.inputs[0]) group.q = linear;
            if (heads == attend.inputs[1]) group.k = linear;
            if (heads == attend.inputs[2]) group.v = linear;
        }
        if (group.q < 0 || group.k < 0 || group.v < 0) return std::nullopt;
        const std::vector<int64_t>& qs = slot(attend.inputs[0]).shape;  // [B, H, T, Dh]
        const std::vector<int64_t>& ks = slot(attend.inputs[1]).shape;
        if (qs.size() != 4 || ks != qs || slot(attend.inputs[2]).shape != qs ||
            qs[0] != x.shape[0] || qs[2] != x.shape[1] || qs[1] * qs[3] != d ||
            !flash_strided_fits(qs[3], d)) {
            return std::nullopt;
        }
        const int64_t merge = only_reader(attend.output, OpKind::merge_heads);
        if (merge < 0 || slot(step(merge).output).shape != x.shape) return std::nullopt;
        const int32_t merged = step(merge).output;
        const std::vector<int64_t>& merged_users = readers_.readers[static_cast<size_t>(merged)];
        if (readers_.kept[static_cast<size_t>(merged)] || merged_users.size() != 1)
            return std::nullopt;
        group.out_proj = merged_users[0];
        if (!gemm_linear(group.out_proj, merged, d, d) ||
            linear_gelu_epilogue(step(group.out_proj)) || !residual_fits(group.out_proj)) {
            return std::nullopt;
        }
        members.insert(members.end(), {attention, merge});
        if (!contiguous(s, group.out_proj, members)) return std::nullopt;
        return group;
    }

    std::optional<EncoderLayerSteps> mlp_half(int64_t s) const {
        const PlanStep& norm = step(s);
        if (norm.inputs.size() < 3) return std::nullopt;
        const Slot& x = slot(norm.inputs[0]);
        if (x.shape.size() != 3) return std::nullopt;
        const int64_t d = x.shape[2];
        const int64_t fc1 = only_reader(norm.output, OpKind::linear);
        if (fc1 < 0) return std::nullopt;
        const int64_t inner = slot(step(fc1).inputs.at(1)).shape.at(0);
        if (!gemm_linear(fc1, norm.output, d, inner) || !linear_gelu_epilogue(step(fc1)) ||
            linear_residual_input(step(fc1))) {
            return std::nullopt;
        }
        const int32_t hidden = step(fc1).output;
        const std::vector<int64_t>& users = readers_.readers[static_cast<size_t>(hidden)];
        if (users.size() != 1) return std::nullopt;
        const int64_t fc2 = users[0];
        if (!gemm_linear(fc2, hidden, inner, d) || linear_gelu_epilogue(step(fc2)) ||
            !residual_fits(fc2) || !contiguous(s, fc2, {fc1})) {
            return std::nullopt;
        }
        // fc1's f32 output is the GEMM's; it must not be the residual fc2 reads.
        const Slot& h = slot(hidden);
        const Slot& r = slot(step(fc2).inputs.at(*linear_residual_input(step(fc2))));
        if (h.kind == SlotKind::arena && r.kind == SlotKind::arena &&
            h.offset_bytes < r.offset_bytes + r.size_bytes &&
            r.offset_bytes < h.offset_bytes + h.size_bytes) {
            return std::nullopt;
        }
        EncoderLayerSteps group;
        group.layer_norm = s;
        group.fc1 = fc1;
        group.fc2 = fc2;
        return group;
    }

    void apply(const EncoderLayerSteps& group, int64_t launch, StepFusion::Role role) {
        for (int64_t t = group.layer_norm; t < launch; ++t) {
            if (!step(t).alias) fusions_[static_cast<size_t>(t)].role = StepFusion::Role::skipped;
        }
        StepFusion& leader = fusions_[static_cast<size_t>(launch)];
        leader.role = role;
        leader.encoder = group;
    }

    const ExecutionPlan& plan_;
    std::vector<StepFusion>& fusions_;
    const LinearWeightKind& weight_kind_;
    PlanReaders readers_;  // [slot] the steps reading it, and whether it must be written
};

}  // namespace

void apply_encoder_fusions(const ExecutionPlan& plan, std::vector<StepFusion>& fusions,
                           const LinearWeightKind& weight_kind,
                           std::span<const int32_t> materialized) {
    if (fusions.empty()) fusions.resize(plan.steps.size());
    EncoderFuser(plan, fusions, weight_kind, materialized).run();
}

int64_t encoder_fusion_scratch_bytes(const ExecutionPlan& plan, const StepFusion& fusion) {
    auto shape = [&](int64_t t, size_t i) -> const std::vector<int64_t>& {
        return plan.slots[static_cast<size_t>(plan.steps[static_cast<size_t>(t)].inputs.at(i))]
            .shape;
    };
    const EncoderLayerSteps& g = fusion.encoder;
    if (fusion.role == StepFusion::Role::encoder_attention) {
        const int64_t elements = element_count(shape(g.layer_norm, 0));  // [B, T, D]
        return align_256(elements * 2) + align_256(3 * elements * 2);
    }
    if (fusion.role == StepFusion::Role::encoder_mlp) {
        const std::vector<int64_t>& xs = shape(g.layer_norm, 0);
        const int64_t rows = element_count(xs) / xs.back();
        const int64_t inner = shape(g.fc1, 1).at(0);
        return align_256(element_count(xs) * 2) + align_256(rows * inner * 2);
    }
    return 0;
}

}  // namespace earshot::backend::cuda
