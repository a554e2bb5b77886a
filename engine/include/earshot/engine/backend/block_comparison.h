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
    // The two values themselves (f32, `shape`) when the request kept them; empty otherwise.
    HostTensor value_a;
    HostTensor value_b;
};

// Whether a comparison hands back every compared value of both runs (what a viewer opens on a
// click) or only the errors. Kept values cost two copies of every block output: 3 MB for the
// micro model's encoder, about 4.5 GB for large-v3's (some 290 outputs of [1, 1500, 1280] f32).
enum class KeptValues { errors_only, both_runs };

struct ComparisonRequest {
    HostTensor mel;  // [1, Mels, Frames]
    // When not empty, the decoder's prefill over these tokens [1, S] is compared too (after a
    // listen of the same mel in each run).
    std::vector<int32_t> tokens;
    // Called before each of the two runs with its label (progress on long work); may be empty.
    std::function<void(const std::string& label)> progress;
    KeptValues kept = KeptValues::errors_only;
    // Asked before each run and after the second; true stops the comparison, which then comes
    // back empty with `cancelled` set. May be empty.
    std::function<bool()> cancelled;
};

struct BlockComparison {
    std::string label_a;
    std::string label_b;
    std::vector<BlockError> blocks;  // sorted by relative_l2, largest first
    bool cancelled = false;          // the request's `cancelled` said so; `blocks` is empty
};

// Runs `a` and `b` on the request, tapping every block output both plans have. Throws TapError
// when the two checkpoints' shapes differ (naming both), std::invalid_argument for a mel of the
// wrong shape (naming both shapes), CudaError from a CUDA run.
BlockComparison compare_blocks(const ComparedRun& a, const ComparedRun& b,
                               const ComparisonRequest& request);

// The table as text (one block a line: relative L2, max abs, shape, name) and as JSON.
std::string comparison_text(const BlockComparison& comparison);
std::string comparison_json(const BlockComparison& comparison);

// The error of b against a: max_abs, max_abs_a, relative_l2, nonfinite set; name etc. left empty.
BlockError tensor_error(const HostTensor& a, const HostTensor& b);

}  // namespace earshot::backend
