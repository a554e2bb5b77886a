// Who reads each slot of an execution plan and which slots must be written: what the CUDA plan
// rewrites (cuda_step_fusions, cuda_encoder_fusions, cuda_cross_kv_fusion) check before they let
// a fused launch skip writing an intermediate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "earshot/engine/backend/plan.h"

namespace earshot::backend::cuda {

struct PlanReaders {
    std::vector<std::vector<int64_t>> readers;  // [slot] the steps reading it, in plan order
    std::vector<bool> kept;  // [slot] must be written: a plan output, or asked to be materialized
};

inline PlanReaders plan_readers(const ExecutionPlan& plan, std::span<const int32_t> materialized) {
    PlanReaders found{std::vector<std::vector<int64_t>>(plan.slots.size()),
                      std::vector<bool>(plan.slots.size(), false)};
    for (size_t t = 0; t < plan.steps.size(); ++t) {
        for (int32_t id : plan.steps[t].inputs) {
            if (id >= 0) found.readers[static_cast<size_t>(id)].push_back(static_cast<int64_t>(t));
        }
    }
    for (int32_t id : plan.outputs) found.kept[static_cast<size_t>(id)] = true;
    for (int32_t id : materialized) {
        if (id >= 0 && static_cast<size_t>(id) < found.kept.size()) {
            found.kept[static_cast<size_t>(id)] = true;
        }
    }
    return found;
}

// The elements of a tensor of `shape`.
inline int64_t element_count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

}  // namespace earshot::backend::cuda
