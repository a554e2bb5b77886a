// CudaDeviceModel's step launching: one step with its error named, a run step by step (timed with
// events, keeping attention), and a repeating plan captured as a CUDA graph and replayed.
#include <cstdio>
#include <string>

#include "cuda_check.h"
#include "cuda_device_model.h"
#include "dependent_launches.h"

namespace earshot::backend::cuda {

namespace {

// "decoder.step, step 37 of 120 (attention in decoder_layers[3].encoder_attn.attend)"
std::string step_label(const ExecutionPlan& plan, size_t index) {
    const PlanStep& step = plan.steps[index];
    return plan.entry + ", step " + std::to_string(index) + " of " +
           std::to_string(plan.steps.size()) + " (" +
           std::string(program::op_kind_name(step.kind)) + " in " +
           (step.scope.empty() ? std::string("the entry") : step.scope) + ")";
}

}  // namespace

void CudaDeviceModel::run_step(const Prepared& prepared, size_t index,
                               const std::vector<void*>& ptr, std::byte* scratch,
                               std::span<const KeptAttention> kept) {
    // A decoder step's kernels may start before the kernel before them ends (each waits for it);
    // any other plan's (the encoder's, listen's, a prefill's) launch plainly.
    const kernels::DependentLaunches dependent(prepared.dependent_launches);
    try {
        execute(prepared, index, ptr, scratch);
        if (!kept.empty()) keep_attention(*prepared.plan, index, ptr, kept);
        if (sync_each_step_) CUDA_CHECK(cudaStreamSynchronize(stream_));
    } catch (const CudaError& error) {
        throw CudaError(error.kind(), step_label(*prepared.plan, index) + ": " + error.what());
    }
}

void CudaDeviceModel::run_step_by_step(Prepared& prepared, const std::vector<void*>& ptr,
                                       std::span<const KeptAttention> kept, bool timed,
                                       std::span<const TapTransfer> taps) {
    const ExecutionPlan& plan = *prepared.plan;
    if (timed && prepared.events.empty()) {
        prepared.events.resize(plan.steps.size() + 1);
        for (cudaEvent_t& event : prepared.events) CUDA_CHECK(cudaEventCreate(&event));
    }
    std::byte* scratch = workspace_.as<std::byte>() + prepared.scratch_offset;
    // Timed: each step between events (a kept head's probabilities count to its attention).
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        if (timed) CUDA_CHECK(cudaEventRecord(prepared.events[s], stream_));
        run_step(prepared, s, ptr, scratch, kept);
        // A tapped value leaves the device in stream order, right after the step writing it
        // (a later step may reuse its arena bytes).
        for (const TapTransfer& tap : taps) {
            if (tap.step != static_cast<int64_t>(s)) continue;
            CUDA_CHECK(cudaMemcpyAsync(tap.host, ptr.at(static_cast<size_t>(tap.slot)),
                                       static_cast<size_t>(tap.bytes), cudaMemcpyDeviceToHost,
                                       stream_));
        }
    }
    if (timed) CUDA_CHECK(cudaEventRecord(prepared.events[plan.steps.size()], stream_));
}

// The addresses a captured graph holds: the workspace and every cache the plan reads, each with
// whether its rows share one copy (the attention kernels' kv_rows).
std::vector<const void*> CudaDeviceModel::graph_signature(const Prepared& prepared,
                                                          const std::vector<void*>& ptr) const {
    std::vector<const void*> signature = {workspace_.get()};
    for (size_t s = 0; s < prepared.plan->slots.size(); ++s) {
        if (prepared.plan->slots[s].kind != SlotKind::state) continue;
        signature.push_back(ptr[s]);
        signature.push_back(shares_rows(*prepared.plan, static_cast<int32_t>(s)) ? ptr[s]
                                                                                 : nullptr);
    }
    return signature;
}

void CudaDeviceModel::abandon_capture(cudaGraph_t graph) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream_, &partial);  // fails, harmlessly, when the capture had ended
    if (partial != nullptr) cudaGraphDestroy(partial);
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaGetLastError();
}

void CudaDeviceModel::launch_steps(Prepared& prepared, const std::vector<void*>& ptr,
                                   std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    ++prepared.runs;
    const std::vector<const void*> signature = graph_signature(prepared, ptr);
    if (prepared.graph != nullptr && prepared.signature == signature) {
        CUDA_CHECK(cudaGraphLaunch(prepared.graph, stream_));
        return;
    }
    if (prepared.graph != nullptr) {  // the workspace or a cache moved: capture again
        cudaGraphExecDestroy(prepared.graph);
        prepared.graph = nullptr;
    }
    // A plan's first run goes step by step; from its second run on (a plan that repeats: the
    // decoder step), its steps are captured once as a CUDA graph and replayed as one launch. The
    // inputs and `pos` were copied into the workspace before, so the graph reads them there.
    if (!graphs_enabled_ || sync_each_step_ || !prepared.graphable || prepared.runs < 2) {
        for (size_t s = 0; s < plan.steps.size(); ++s) run_step(prepared, s, ptr, scratch);
        return;
    }
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
        for (size_t s = 0; s < plan.steps.size(); ++s) run_step(prepared, s, ptr, scratch);
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&prepared.graph, graph, 0));
        cudaGraphDestroy(graph);
    } catch (const CudaError& error) {
        // Whatever refused to be captured: end the capture, say why (once per model), count
        // it, and run this plan step by step for good.
        abandon_capture(graph);
        if (graph_capture_failures_++ == 0) {
            std::fprintf(stderr,
                         "earshot: CUDA graph capture failed for %s, running its steps one by "
                         "one: %s\n",
                         plan.entry.c_str(), error.what());
        }
        prepared.graph = nullptr;
        prepared.graphable = false;
        for (size_t s = 0; s < plan.steps.size(); ++s) run_step(prepared, s, ptr, scratch);
        return;
    } catch (...) {
        abandon_capture(graph);  // any other exception ends the capture too, then goes on
        throw;
    }
    prepared.signature = signature;
    CUDA_CHECK(cudaGraphLaunch(prepared.graph, stream_));
}

}  // namespace earshot::backend::cuda
