// The boundary between the engine and the CUDA module (libearshot_cuda.so), which the engine
// loads with dlopen only when CUDA is asked for: the module executes ExecutionPlans that the
// engine traced and planned (shape logic stays on this side), on weights and caches it keeps on
// one device. Both sides are built by the same compiler from this header; the version guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/plan.h"
#include "earshot/engine/backend/token_choice.h"

namespace earshot::backend::cuda {

// Bumped whenever anything in this header changes.
inline constexpr int kModuleAbiVersion = 7;
// extern "C" Module* earshot_cuda_module(int abi_version): nullptr on a version mismatch.
inline constexpr const char* kModuleEntryName = "earshot_cuda_module";
inline constexpr const char* kModuleFileName = "libearshot_cuda.so";

// A parameter as the plans read it: GEMM weights (linear and conv1d weights, the embedding
// table) as f16, everything else (biases, norms, positions) as f32; a parameter read both ways
// has both copies. A linear's weight that only linears read may come as quantized blocks
// instead of f16 (issue 34): `block_bytes` bytes of whole blocks of the ggml type `block_type`
// (q8_0 8, q5_0 6, q4_0 2; 32 values each, every row whole blocks), which the module keeps
// as they are and its GEMVs read directly.
struct HostParam {
    std::string path;
    int64_t elements = 0;
    const uint16_t* f16 = nullptr;      // IEEE half bits, or null
    const float* f32 = nullptr;         // or null
    const std::byte* blocks = nullptr;  // or null (then f16 is null)
    int64_t block_bytes = 0;
    int32_t block_type = 0;
};

// Whether step input `input` of an op reads its parameter as f16 (the GEMM weight of linear and
// conv1d, the table of embedding); every other parameter read is f32.
inline bool reads_param_as_f16(program::OpKind kind, size_t input) {
    return input == 1 && (kind == program::OpKind::linear || kind == program::OpKind::conv1d ||
                          kind == program::OpKind::embedding);
}

// Whether a state's rows may share one copy: `shareable` for a cache only listen writes (the
// cross caches; every row of a beam attends to the same audio), so rows expanded from one row
// read that row's values; `own` for a cache the decoder writes per row (self-attention).
enum class StateRows { own, shareable };

// A state tensor (decoder cache), zero-filled: `elements` f32 values over `rows` rows.
struct StateSpec {
    std::string path;
    int64_t elements = 0;
    int64_t rows = 1;
    StateRows sharing = StateRows::own;
};

// A host input of a run, in the plan's input order; scalars (pos) are passed separately.
struct HostInput {
    const void* data = nullptr;
    int64_t size_bytes = 0;
};

// One head's attention probabilities a run keeps (word alignment): right after plan step `step`
// (an attention, q [B, H, Q, Dh] and k [B, H, K, Dh]), softmax(q k^T * scale) of head `head` for
// every batch row and query over the K keys, unmasked, in f32 as the CPU backend computes it.
struct KeptAttention {
    int64_t step = 0;
    int64_t head = 0;
};

// A tapped value a run copies to the host (backend/tap.h): right after plan step `step`, the
// `bytes` of arena slot `slot` into `host`, before any later step can reuse them.
struct TapTransfer {
    int64_t step = 0;
    int32_t slot = -1;
    void* host = nullptr;
    int64_t bytes = 0;
};

// One model's weights, caches and workspace on one device. Calls come from one thread at a time.
class DeviceModel {
public:
    virtual ~DeviceModel() = default;

    virtual void add_param(const HostParam& param) = 0;
    // Replaces every state with zeros of the given sizes.
    virtual void set_states(const std::vector<StateSpec>& states) = 0;
    // Every state becomes `rows` rows of its current per-row size, row r copying row source[r]
    // of a batch of `batch` rows (expand: source all zero; reorder: a permutation).
    virtual void gather_rows(std::span<const int64_t> source, int64_t batch, int64_t rows) = 0;

    // Checks that every param and state the plan reads is present with its planned size and
    // makes room for its arena, scratch and inputs (allocation happens here, never in run).
    // `plan` must stay alive and unchanged while the returned handle is used.
    virtual int prepare(const ExecutionPlan& plan) = 0;
    // Runs a prepared plan: inputs uploaded, every step launched on the model's stream, the
    // first output copied to `output` (when not null) and the stream synchronised once, at the end.
    // With `step_ms` not null each step is timed with CUDA events (one value per plan step).
    virtual void run(int handle, std::span<const HostInput> inputs, int32_t pos, void* output,
                     int64_t output_bytes, std::vector<double>* step_ms) = 0;
    // run, step by step (a captured graph is neither used nor changed), that also copies the
    // probabilities of the `kept` heads to `weights`: [B, kept.size(), Q, K] f32 of
    // `weights_bytes`, every kept step with the same B, Q and K. Ordinary runs pay nothing for it.
    virtual void run_keeping_attention(int handle, std::span<const HostInput> inputs, int32_t pos,
                                       void* output, int64_t output_bytes,
                                       std::span<const KeptAttention> kept, float* weights,
                                       int64_t weights_bytes, std::vector<double>* step_ms) = 0;

    // run_keeping_attention (kept may be empty, weights then null) that also copies the `taps`
    // to the host after the steps that write them. Step by step: a captured graph is neither
    // used nor changed, so untapped runs keep their replays.
    virtual void run_tapped(int handle, std::span<const HostInput> inputs, int32_t pos,
                            void* output, int64_t output_bytes, std::span<const KeptAttention> kept,
                            float* weights, int64_t weights_bytes,
                            std::span<const TapTransfer> taps, std::vector<double>* step_ms) = 0;

    // run of a plan whose first output is logits [rows, vocab] f32 (version 7, issue 30), then
    // each row's token choice on the device (token_choice.h: request.rows.size() == rows): only
    // `chosen` [rows] crosses back through pinned memory, not the logits; one synchronisation.
    virtual void run_choosing(int handle, std::span<const HostInput> inputs, int32_t pos,
                              const ChoiceRequest& request, RowChoice* chosen,
                              std::vector<double>* step_ms) = 0;

    virtual int64_t device_bytes() const = 0;  // everything this model holds on the device
    // How many CUDA graph captures failed (each plan then runs step by step).
    virtual int64_t graph_capture_failures() const = 0;
};

class Module {
public:
    virtual ~Module() = default;
    // Throws CudaError (no driver, driver too old, no device).
    virtual std::vector<CudaDevice> devices() = 0;
    // Throws CudaError (bad index, no kernel image for the device, cuBLAS setup).
    virtual std::unique_ptr<DeviceModel> open(int device, const std::string& model_name) = 0;
};

using ModuleEntry = Module* (*)(int abi_version);

}  // namespace earshot::backend::cuda
