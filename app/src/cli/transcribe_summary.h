// The summary `earshot transcribe --summary FILE` writes after a batch: one entry per input of
// this run (its shard), what became of it, and the counts, as JSON for the scripts and job arrays
// that drive archives.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace earshot::app {

enum class InputOutcome { done, skipped, failed, interrupted };

struct InputSummary {
    std::string input;
    InputOutcome outcome = InputOutcome::done;
    std::vector<std::filesystem::path> outputs;  // written (done, interrupted) or found (skipped)
    std::string error;                           // failed: the one-line reason
    double seconds = 0.0;                        // wall time spent on it
};

// {"shard": "K/N" or null, "counts": {"done": n, "skipped": n, "failed": n, "interrupted": n},
//  "files": [{"input", "status", "outputs": [...], "error"?, "seconds"}]}
std::string transcribe_summary_json(const std::vector<InputSummary>& files,
                                    const std::string& shard);

}  // namespace earshot::app
