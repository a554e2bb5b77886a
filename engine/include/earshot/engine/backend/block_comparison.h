// BlockComparison: the same input through two runs (two backends, two checkpoints of one model
// such as f16 and its q8_0 copy, or CPU against CPU) tapped at every block's output, and each
// block's relative error between them, worst first. `earshot debug compare` prints it; the
// Inspector draws it as a heat on the graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/backend/tap.h"

namespace earshot::model {
struct WhisperCheckpoint;
}

namespace earshot::backend {

// One run of a comparison: a checkpoint on a backend.
struct ComparedRun {
    const model::WhisperCheckpoint* checkpoint = nullptr;
    PlanBackend backend = PlanBackend::cpu;
    std::string label;  // "cpu f16", "cuda", the model's folder name: shown in the table
    // A CPU run's thread count (CpuWhisper::set_threads); 0: the process's shared pool. A CUDA
    // run takes 0 only.
    int threads = 0;
};

struct BlockError {
    std::string name;   // the block output's tap name: "encoder_layers[3].forward"
    std::string entry;  // "encode" or "prefill"
    std::string op;
    std::vector<int64_t> shape;
    double max_abs = 0.0;    // max |a - b|
    double max_abs_a = 0.0;  // max |a|, the scale max_abs is read against
    // ||a - b|| / ||a|| over every value (||a - b|| when a is all zero); NaN or Inf in either
    // run makes it infinite.
    double relative_l2 = 0.0;
    int64_t nonfinite = 0;  // values that are NaN or Inf in one run and not the other
    // The two values themselves (f32, `shape`) when the request kept them within its budget;
    // empty otherwise (compare_block computes them again).
    HostTensor value_a;
    HostTensor value_b;

    bool kept() const { return !value_a.f32_values().empty() || !value_b.f32_values().empty(); }
    int64_t value_bytes() const;  // what value_a and value_b hold
};

// Whether a comparison hands back compared values of both runs (what a viewer opens on a click)
// or only the errors. Both runs' values of every block cost 3 MB for the micro model's encoder,
// about 4.5 GB for large-v3's (some 290 outputs of [1, 1500, 1280] f32): values are kept only
// within half the request's budget, the first blocks in plan order first.
enum class KeptValues { errors_only, both_runs };

// The default of ComparisonRequest::budget_bytes.
inline constexpr int64_t kDefaultComparisonBudgetBytes = int64_t{256} << 20;

struct ComparisonRequest {
    HostTensor mel;  // [1, Mels, Frames]
    // When not empty, the decoder's prefill over these tokens [1, S] is compared too (after a
    // listen of the same mel in each run).
    std::vector<int32_t> tokens;
    // Called before each run with its label, its number (from 1) and how many runs the
    // comparison makes (2 per pass); may be empty.
    std::function<void(const std::string& label, int run, int runs)> progress;
    KeptValues kept = KeptValues::errors_only;
    // The most bytes of block values the comparison holds at once: both runs' values of the
    // blocks a pass compares, and those it keeps (at most half of it). The blocks are compared in
    // passes, each running both runs again with taps on the next blocks that fit; a single
    // block's two values are held whatever the budget. Each block's error is computed as soon as
    // its pass's second run ends, and values not kept are let go then.
    int64_t budget_bytes = kDefaultComparisonBudgetBytes;
    // Asked before each run and after the last; true stops the comparison, which then comes
    // back empty with `cancelled` set. May be empty.
    std::function<bool()> cancelled;
};

struct BlockComparison {
    std::string label_a;
    std::string label_b;
    std::vector<BlockError> blocks;  // sorted by relative_l2, largest first
    bool cancelled = false;          // the request's `cancelled` said so; `blocks` is empty
    int passes = 0;                  // the passes made (each a run of a and one of b)
    // The most bytes of block values held at once while comparing (tapped, not yet compared,
    // and kept), counted exactly as the tensors' f32 values.
    int64_t peak_value_bytes = 0;
    int64_t kept_value_bytes() const;  // what `blocks` hold now (BlockError::value_bytes)
};

// Runs `a` and `b` on the request, tapping every block output both plans have. Throws TapError
// when the two checkpoints' shapes differ (naming both), std::invalid_argument for a mel of the
// wrong shape (naming both shapes), CudaError from a CUDA run.
BlockComparison compare_blocks(const ComparedRun& a, const ComparedRun& b,
                               const ComparisonRequest& request);

// One block output `name` of `entry` ("encode", "listen" or "prefill"; prefill after a listen)
// computed again by both runs, tapped on just that block: its error and both values (kept
// whatever the budget). Throws TapError when either run lacks the block, and what
// compare_blocks throws.
BlockError compare_block(const ComparedRun& a, const ComparedRun& b,
                         const ComparisonRequest& request, const std::string& entry,
                         const std::string& name);

// The table as text (one block a line: relative L2, max abs, shape, name) and as JSON.
std::string comparison_text(const BlockComparison& comparison);
std::string comparison_json(const BlockComparison& comparison);

// The error of b against a: max_abs, max_abs_a, relative_l2, nonfinite set; name etc. left empty.
BlockError tensor_error(const HostTensor& a, const HostTensor& b);

}  // namespace earshot::backend
