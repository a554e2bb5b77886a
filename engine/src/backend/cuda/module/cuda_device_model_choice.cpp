// CudaDeviceModel::run_choosing: a step's run whose logits stay on the device, each row's token
// chosen there (kernels_choose_tokens.cu) and only the RowChoice values copied back through
// pinned memory (issue 30).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_model.h"
#include "cuda_workspace_layout.h"
#include "dependent_launches.h"
#include "kernels.h"

namespace earshot::backend::cuda {

namespace {

// Grows `buffer` to at least `bytes` (after the stream's work that may read it).
void reserve(DeviceBuffer& buffer, int64_t bytes, cudaStream_t stream, const char* what,
             const std::string& model_name) {
    if (buffer.bytes() >= bytes) return;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    buffer.reset();
    buffer = DeviceBuffer(bytes, what, model_name);
}

}  // namespace

void CudaDeviceModel::run_choosing(int handle, std::span<const HostInput> inputs, int32_t pos,
                                   const ChoiceRequest& request, RowChoice* chosen,
                                   std::vector<double>* step_ms) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared& prepared = prepared_.at(static_cast<size_t>(handle));
    const ExecutionPlan& plan = *prepared.plan;
    const Slot& out = plan.slots.at(static_cast<size_t>(plan.outputs.at(0)));
    if (out.kind != SlotKind::arena || out.shape.size() != 2 ||
        out.size_bytes != out.shape[0] * out.shape[1] * 4) {
        throw std::logic_error(plan.entry + ": its first output is no [rows, vocab] f32 logits");
    }
    const int64_t rows = out.shape[0];  // logits [rows, vocab]
    const int64_t vocab = out.shape[1];
    if (static_cast<int64_t>(request.rows.size()) != rows) {
        throw std::invalid_argument(plan.entry + ": token choice for " +
                                    std::to_string(request.rows.size()) + " rows of " +
                                    std::to_string(rows));
    }
    if (request.choices < 1 || request.choices > kMaxChoices || request.choices > vocab) {
        throw std::invalid_argument(plan.entry + ": " + std::to_string(request.choices) +
                                    " tokens asked per row; 1 to " +
                                    std::to_string(std::min<int64_t>(kMaxChoices, vocab)));
    }

    // Room first (never while a run is in flight): the filtered rows, rules, choices, lists.
    const int64_t rules_bytes = rows * static_cast<int64_t>(sizeof(RowRules));
    const int64_t chosen_bytes = rows * static_cast<int64_t>(sizeof(RowChoice));
    // The inputs and pos, staged in pinned memory when they go up.
    int64_t staged_bytes = align_up(sizeof(int32_t));
    for (const Slot& slot : plan.slots) {
        if (slot.kind == SlotKind::input && !slot.scalar) staged_bytes += align_up(slot.size_bytes);
    }
    const int64_t pinned_bytes = rules_bytes + chosen_bytes + staged_bytes;
    reserve(choice_work_, rows * vocab * 4, stream_, "the filtered logits", model_name_);
    reserve(choice_rules_, rules_bytes, stream_, "the token rules", model_name_);
    reserve(choice_out_, chosen_bytes, stream_, "the chosen tokens", model_name_);
    if (choice_pinned_bytes_ < pinned_bytes) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (choice_pinned_ != nullptr) CUDA_CHECK(cudaFreeHost(choice_pinned_));
        choice_pinned_ = nullptr;
        choice_pinned_bytes_ = 0;
        CUDA_CHECK(cudaMallocHost(&choice_pinned_, static_cast<size_t>(pinned_bytes)));
        choice_pinned_bytes_ = pinned_bytes;
    }
    // The window's lists change once per window: uploaded only then.
    std::vector<int32_t> lists = request.suppressed;
    lists.insert(lists.end(), request.boosted.begin(), request.boosted.end());
    if (lists != choice_lists_ || choice_lists_device_.get() == nullptr) {
        reserve(choice_lists_device_, std::max<int64_t>(4, static_cast<int64_t>(lists.size()) * 4),
                stream_, "the suppressed tokens", model_name_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));  // the last upload may still be read
        choice_lists_ = std::move(lists);
        if (!choice_lists_.empty()) {
            CUDA_CHECK(cudaMemcpyAsync(choice_lists_device_.get(), choice_lists_.data(),
                                       choice_lists_.size() * 4, cudaMemcpyHostToDevice, stream_));
        }
    }
    auto* pinned_rules = static_cast<RowRules*>(choice_pinned_);
    auto* pinned_chosen =
        reinterpret_cast<RowChoice*>(static_cast<std::byte*>(choice_pinned_) + rules_bytes);
    std::memcpy(pinned_rules, request.rows.data(), static_cast<size_t>(rules_bytes));
    CUDA_CHECK(cudaMemcpyAsync(choice_rules_.get(), pinned_rules, static_cast<size_t>(rules_bytes),
                               cudaMemcpyHostToDevice, stream_));

    const std::vector<void*> ptr =
        bind(prepared, inputs, pos,
             static_cast<std::byte*>(choice_pinned_) + rules_bytes + chosen_bytes);
    if (step_ms != nullptr) {
        run_step_by_step(prepared, ptr, {}, true);
    } else {
        launch_steps(prepared, ptr, workspace_.as<std::byte>() + prepared.scratch_offset);
    }
    const int32_t token_slot = prepared.fed_token_slot;
    {
        // Dependent on the step's last kernel, as the step's kernels are on each other.
        const kernels::DependentLaunches dependent(prepared.dependent_launches);
        const auto* suppressed = choice_lists_device_.as<int32_t>();
        kernels::choose_tokens(
            static_cast<const float*>(ptr[static_cast<size_t>(plan.outputs[0])]),
            choice_work_.as<float>(), rows, vocab, suppressed,
            static_cast<int64_t>(request.suppressed.size()), suppressed + request.suppressed.size(),
            static_cast<int64_t>(request.boosted.size()), request.boost, request.timestamp_begin,
            choice_rules_.as<RowRules>(), request.choices, choice_out_.as<RowChoice>(), stream_);
        // The next step's token input and pos from these choices, on the device: a greedy step
        // that feeds each row's best token at pos + 1 then copies neither up (bind).
        if (token_slot >= 0) {
            kernels::feed_next_step(
                choice_out_.as<RowChoice>(), rows,
                static_cast<int32_t*>(ptr[static_cast<size_t>(token_slot)]),
                reinterpret_cast<int32_t*>(workspace_.as<std::byte>() + prepared.pos_offset),
                stream_);
        }
    }
    CUDA_CHECK(cudaMemcpyAsync(pinned_chosen, choice_out_.get(), static_cast<size_t>(chosen_bytes),
                               cudaMemcpyDeviceToHost, stream_));
    finish(prepared, ptr, nullptr, 0, step_ms);
    std::memcpy(chosen, pinned_chosen, static_cast<size_t>(chosen_bytes));
    if (token_slot >= 0) {
        fed_.prepared = &prepared;
        fed_.tokens.resize(static_cast<size_t>(rows));
        for (int64_t r = 0; r < rows; ++r)
            fed_.tokens[static_cast<size_t>(r)] = chosen[r].tokens[0];
        fed_.pos = pos + 1;
    }
}

}  // namespace earshot::backend::cuda
