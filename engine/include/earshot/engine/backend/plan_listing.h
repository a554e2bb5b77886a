// PlanListing: the plan of one Whisper entry as a backend executes it, after the plan's rewrites
// (repeats shared, views, linear epilogues) and the backend's own choices (the CUDA module's
// GEMV or GEMM, fused or one-query attention): every kernel in launch order with its scope, its
// operands' shapes and dtypes, the bytes it reads and writes and its FLOPs. Built from the
// checkpoint's configuration alone (no weights), so any model's plan can be read anywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/model/whisper_binding.h"

namespace earshot::backend {

// A listing that cannot be made: an unknown entry or backend, rows or tokens out of range.
class PlanListingError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

enum class PlanBackend { cpu, cuda };

// "cpu" or "cuda"; anything else is nullopt.
std::optional<PlanBackend> parse_plan_backend(std::string_view name);
std::string_view plan_backend_name(PlanBackend backend);

// The entries a listing covers, in the order `earshot debug plan --help` names them.
const std::vector<std::string>& listed_entries();  // step, prefill, listen, encode

// One operand as the kernel reads or writes it: "f16[1280, 1280]".
struct PlanOperand {
    std::string dtype;  // f32, f16, i32, bool
    std::vector<int64_t> shape;
    std::string str() const;
};

struct PlanKernel {
    std::string kernel;  // what runs: "gemv_f16", "cublas_gemm", "layer_norm", ...
    std::string op;      // the plan op it is part of: "linear", "attention", ...
    // The call scope with loop indices in brackets: `decoder_layers[3].encoder_attn.attend`.
    std::string scope;
    std::vector<PlanOperand> inputs;
    std::vector<PlanOperand> outputs;
    // Bytes the kernel reads and writes in device (or main) memory: weights at the dtype the
    // backend keeps them in, caches and intermediates at theirs. A lookup counts the rows it
    // reads, a write into a cache the positions it writes; an attention counts every key and
    // value position (masked ones included).
    int64_t read_bytes = 0;
    int64_t written_bytes = 0;
    int64_t flops = 0;  // products only: 2 per multiply-add
};

struct PlanListingRequest {
    std::string entry;  // step, prefill, listen or encode
    PlanBackend backend = PlanBackend::cpu;
    int64_t rows = 1;    // Batch (encode: B)
    int64_t tokens = 4;  // prefill's S: the start of transcript, language, task, no timestamps
    // Whether the checkpoint holds the optional parameter at `path` (a linear's bias). Unset:
    // as Whisper's checkpoints hold them, every bias but the keys' (`k_proj.bias`).
    std::function<bool(const std::string& path)> has_param;
    // What the decoder caches hold, "f16" or "f32"; empty: the backend's own (the CPU's follow
    // the checkpoint's matrices, as decoding sets them up; CUDA's are always f16).
    std::string cache_dtype;
    // CUDA: the ggml type ("q5_0") whose blocks the module keeps the parameter at `path` in, or
    // "" for f16 (CudaWhisper::kept_blocks). Unset: every weight f16.
    std::function<std::string(const std::string& path)> weight_blocks;
};

struct PlanListing {
    std::string entry;
    PlanBackend backend = PlanBackend::cpu;
    int64_t rows = 1;
    int64_t tokens = 0;        // prefill's S; 0 for the other entries
    std::string cache_dtype;   // what the decoder caches hold on this backend: f16 or f32
    std::string weight_dtype;  // the checkpoint's (config.weight_dtype)
    std::vector<PlanKernel> kernels;
    int64_t views = 0;  // plan steps that launch nothing (a reshape, heads of one position)

    int64_t read_bytes() const;
    int64_t written_bytes() const;
    int64_t flops() const;
};

// The listing of `request.entry` under `binding`. Throws PlanListingError for an unknown entry,
// rows < 1, prefill tokens outside 1 .. MaxTokens, or caches the backend cannot hold.
PlanListing list_plan(const model::WhisperBinding& binding, const PlanListingRequest& request);

// "TOTAL: 1247 kernels, 1763.42 MiB read, 4.87 MiB written, 1.674 GFLOP"
std::string plan_total_line(const PlanListing& listing);
// A listing's cells: 1536 -> "1.50 KiB" (under 1 KiB as it is, then KiB or MiB with two
// decimals); FLOP as "-" for none, then KFLOP, MFLOP or GFLOP with two decimals.
std::string plan_bytes_text(int64_t bytes);
std::string plan_flops_text(int64_t flops);

// The listing as text: a header line naming entry, backend, rows and dtypes, a column header, one
// line per kernel, and plan_total_line last.
std::string plan_listing_text(const PlanListing& listing);

}  // namespace earshot::backend
