#include "cli/transcribe_summary.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace earshot::app {

namespace {

const char* outcome_name(InputOutcome outcome) {
    switch (outcome) {
        case InputOutcome::done:
            return "done";
        case InputOutcome::skipped:
            return "skipped";
        case InputOutcome::failed:
            return "failed";
        case InputOutcome::interrupted:
            return "interrupted";
    }
    return "done";
}

}  // namespace

std::string transcribe_summary_json(const std::vector<InputSummary>& files,
                                    const std::string& shard) {
    nlohmann::ordered_json root;
    root["shard"] = shard.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(shard);
    nlohmann::ordered_json counts;
    for (InputOutcome outcome : {InputOutcome::done, InputOutcome::skipped, InputOutcome::failed,
                                 InputOutcome::interrupted}) {
        counts[outcome_name(outcome)] = 0;
    }
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const InputSummary& file : files) {
        counts[outcome_name(file.outcome)] = counts[outcome_name(file.outcome)].get<int>() + 1;
        nlohmann::ordered_json entry;
        entry["input"] = file.input;
        entry["status"] = outcome_name(file.outcome);
        nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
        for (const auto& output : file.outputs) outputs.push_back(output.string());
        entry["outputs"] = outputs;
        if (!file.error.empty()) entry["error"] = file.error;
        entry["seconds"] = std::round(file.seconds * 1000.0) / 1000.0;
        list.push_back(entry);
    }
    root["counts"] = counts;
    root["files"] = list;
    return root.dump(2) + "\n";
}

}  // namespace earshot::app
