// CudaDeviceModel's kept attention: the heads a run keeps checked against the plan, and their
// probabilities computed after their attention step, for word alignment.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"
#include "kernels.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

using program::OpKind;

void CudaDeviceModel::check_kept(const ExecutionPlan& plan, std::span<const KeptAttention> kept,
                                 int64_t weights_bytes) const {
    int64_t expected = 0;
    std::vector<int64_t> first;  // B, Q, K of the first kept step
    for (const KeptAttention& keep : kept) {
        if (keep.step < 0 || keep.step >= static_cast<int64_t>(plan.steps.size()) ||
            plan.steps[static_cast<size_t>(keep.step)].kind != OpKind::attention) {
            throw std::invalid_argument(plan.entry + ": step " + std::to_string(keep.step) +
                                        " is no attention whose probabilities could be kept");
        }
        const PlanStep& step = plan.steps[static_cast<size_t>(keep.step)];
        const auto& qs = plan.slots[static_cast<size_t>(step.inputs.at(0))].shape;  // [B,H,Q,Dh]
        const auto& ks = plan.slots[static_cast<size_t>(step.inputs.at(1))].shape;  // [B,H,K,Dh]
        if (keep.head < 0 || keep.head >= qs[1]) {
            throw std::invalid_argument(plan.entry + ": no head " + std::to_string(keep.head) +
                                        " in an attention of " + std::to_string(qs[1]));
        }
        const std::vector<int64_t> sizes = {qs[0], qs[2], ks[2]};
        if (first.empty()) first = sizes;
        if (sizes != first) {
            throw std::invalid_argument(plan.entry +
                                        ": kept attentions differ in batch, queries or keys");
        }
    }
    if (!first.empty()) {
        expected = first[0] * static_cast<int64_t>(kept.size()) * first[1] * first[2] * 4;
    }
    if (weights_bytes != expected) {
        throw std::invalid_argument(plan.entry + ": the kept weights take " +
                                    std::to_string(expected) + " bytes, not " +
                                    std::to_string(weights_bytes));
    }
}

void CudaDeviceModel::keep_attention(const ExecutionPlan& plan, size_t index,
                                     const std::vector<void*>& ptr,
                                     std::span<const KeptAttention> kept) {
    const PlanStep& step = plan.steps[index];
    const auto wanted = static_cast<int64_t>(kept.size());
    for (int64_t i = 0; i < wanted; ++i) {
        if (kept[static_cast<size_t>(i)].step != static_cast<int64_t>(index)) continue;
        const Slot& q_slot = plan.slots[static_cast<size_t>(step.inputs.at(0))];
        const Slot& k_slot = plan.slots[static_cast<size_t>(step.inputs.at(1))];
        const auto& qs = q_slot.shape;  // [B, H, Q, Dh]
        const int64_t q_len = qs[2];
        const int64_t k_len = k_slot.shape[2];
        const auto* q = static_cast<const float*>(ptr[static_cast<size_t>(step.inputs[0])]);
        const void* k = ptr[static_cast<size_t>(step.inputs[1])];
        // The same scale as the attention itself: 1 / sqrt(scale_dim) in f32.
        const float scale = 1.0F / std::sqrt(static_cast<float>(step.ints.at("scale_dim")));
        // [B, wanted, Q, K]: head i of row b at (b wanted + i) Q K.
        float* p = kept_attention_.as<float>() + i * q_len * k_len;
        const int64_t row_stride = wanted * q_len * k_len;
        const int64_t head = kept[static_cast<size_t>(i)].head;
        if (k_slot.kind == SlotKind::state && shares_rows(plan, step.inputs[1])) {
            // Every batch row reads one shared copy of the cross cache: a launch per row.
            for (int64_t b = 0; b < qs[0]; ++b) {
                kernels::attention_probabilities(q + b * qs[1] * q_len * qs[3],
                                                 static_cast<const uint16_t*>(k),
                                                 p + b * row_stride, 1, qs[1], head, q_len, k_len,
                                                 qs[3], scale, row_stride, stream_);
            }
        } else if (k_slot.kind == SlotKind::state) {  // the f16 cross cache
            kernels::attention_probabilities(q, static_cast<const uint16_t*>(k), p, qs[0], qs[1],
                                             head, q_len, k_len, qs[3], scale, row_stride, stream_);
        } else {
            kernels::attention_probabilities(q, static_cast<const float*>(k), p, qs[0], qs[1], head,
                                             q_len, k_len, qs[3], scale, row_stride, stream_);
        }
    }
}

}  // namespace earshot::backend::cuda
