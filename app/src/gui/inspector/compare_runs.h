// compare_runs: the Inspector's "Compare runs" computed: run B's checkpoint loaded, the input's
// window as a log-mel, both runs tapped at every block output (backend/block_comparison.h) with
// their values kept, and the result as the inspector's plain data, each block mapped to the calls
// of its entry's graph that return it (the heat's keys).
#pragma once

#include <QString>
#include <cstdint>
#include <functional>
#include <string>

#include "earshot/ui/inspector/compare_data.h"

namespace earshot::app {

struct CompareJob {
    // Run A's checkpoint (and run B's when model_b is ""): the loaded model's path, read again
    // (a loaded model's backend holds its weights; the checkpoint it came from keeps none).
    std::string model_path;
    std::string backend_a = "cpu";  // "cpu" or "cuda"
    std::string backend_b = "cpu";
    std::string model_b;  // run B's checkpoint path; "" = run A's
    // The input: the window of `audio_path` from `start_s`, or the log-mel .npy `mel_path`.
    std::string audio_path;
    double start_s = 0.0;
    std::string mel_path;
    QString input_label;   // "talk.wav, the window from 00:12"
    bool decoder = false;  // listen and prefill over the start-of-transcript tokens too
    int threads_a = 0;     // CPU threads of each run; 0: the shared pool
    int threads_b = 0;
    int64_t budget_bytes = int64_t{256} << 20;  // ComparisonRequest::budget_bytes
};

// Progress: what runs now, step `step` of `steps`.
using CompareProgress = std::function<void(const QString& what, int step, int steps)>;

// Runs `job`. Never throws: a failure (a model that cannot be read, models of different shapes,
// a mel of the wrong shape, CUDA unavailable) comes back as RunComparison::error, one line;
// `cancelled` (asked between the runs) as RunComparison::cancelled.
ui::RunComparison compare_runs(const CompareJob& job, const CompareProgress& progress,
                               const std::function<bool()>& cancelled);

// Block `name` of `entry` of `job`'s comparison computed again, both runs tapped at just that
// block (backend::compare_block): the row with both values. Never throws: a failure is `error`.
ui::CompareRow compare_one_block(const CompareJob& job, const QString& entry, const QString& name,
                                 QString& error);

}  // namespace earshot::app
