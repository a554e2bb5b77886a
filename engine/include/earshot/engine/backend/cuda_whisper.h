// CudaWhisper: the CUDA backend running the traced Whisper program, the same plans as CpuWhisper
// executed by the CUDA module (loaded at run time): f16 weights on tensor cores with f32
// accumulation, the arena, caches and encoder output resident on the device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/step_timing.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/backend/token_choice.h"
#include "earshot/engine/model/whisper_binding.h"

namespace earshot::model {
struct WhisperCheckpoint;
}

namespace earshot::backend {

class CudaWhisper {
public:
    // Uploads every weight to device `device`. Throws CudaError (module, driver, device, memory;
    // out of memory names `model_name` and how much it needed).
    CudaWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch = 1, int device = 0,
                const std::string& model_name = "the model");
    ~CudaWhisper();
    CudaWhisper(CudaWhisper&&) noexcept;
    CudaWhisper& operator=(CudaWhisper&&) noexcept;

    const model::WhisperBinding& binding() const;
    int64_t batch() const;
    const CudaDevice& device() const;

    // The same entries as CpuWhisper, with the same shapes and errors.
    HostTensor encode(const HostTensor& mel);                              // -> [B, A, D]
    HostTensor decode(const HostTensor& tokens, const HostTensor& audio);  // -> [B, S, Vocab]
    HostTensor listen(const HostTensor& mel);                              // -> [Batch, A, D]
    // listen without copying the audio states back to the host (the decoder model's use).
    void listen_on_device(const HostTensor& mel);
    // With `cross_attention` the asked heads' cross-attention probabilities are kept as well
    // (word alignment), computed on the device in f32 right after each asked layer's attention.
    HostTensor prefill(const HostTensor& tokens,
                       CrossAttentionRequest* cross_attention = nullptr);  // -> [Batch, Vocab]
    HostTensor step(const HostTensor& token, int32_t pos);                 // -> [Batch, Vocab]
    // step whose logits stay on the device: each row's token choice made there (token_choice.h,
    // request.rows.size() == Batch) and only the choices copied back, sizeof(RowChoice) bytes a
    // row. chooses_on_device() is false while taps are attached or EARSHOT_CUDA_OLD_KERNELS
    // names host_selection (then the decoder model chooses on the host from step()).
    bool chooses_on_device() const;
    std::vector<RowChoice> step_choosing(const HostTensor& token, int32_t pos,
                                         const ChoiceRequest& request);

    void resize_batch(int64_t batch);
    void expand_batch(int64_t rows);
    void reorder_batch(std::span<const int64_t> source_rows);

    // Everything this model holds on the device now: weights, caches, the workspace.
    int64_t device_bytes() const;
    // The ggml type ("q8_0", "q5_0", "q4_0") whose blocks the device keeps the weight at `path`
    // in, read directly by the decoder step's GEMVs; "" for a weight kept as f16 or f32. What
    // PlanListingRequest::weight_blocks takes.
    std::string kept_blocks(const std::string& path) const;
    // How many CUDA graph captures failed (the first is reported once on stderr with its reason;
    // the plan then runs step by step). EARSHOT_CUDA_SYNC_EACH_STEP=1 synchronises after every
    // plan step, so that a CudaError names the step, its op and its scope.
    int64_t graph_capture_failures() const;

    // Per-step times of the last call from CUDA events, when profiling is on.
    void set_profiling(bool on);
    const std::vector<StepTiming>& last_timings() const;

    // Taps (tap.h): while `taps` is attached, a run that has any of its names runs step by step,
    // not as a captured CUDA graph, and copies only the tapped values from the device right
    // after the step that writes each; null detaches (captured replays resume). `taps` must
    // outlive the attachment.
    void set_taps(TapSet* taps);
    std::vector<TappableEdge> tappable_edges(const std::string& entry, int64_t tokens = 4);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace earshot::backend
