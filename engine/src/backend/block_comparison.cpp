// BlockComparison: two runs of the same input tapped at every block output, the error of each
// block of the second against the first, worst first (block_comparison.h).
#include "earshot/engine/backend/block_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/program/types.h"

namespace earshot::backend {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Every block output of one run: entry -> name -> value.
using RunValues = std::map<std::string, std::map<std::string, TappedValue>>;

struct EdgeInfo {
    std::string op;
};

template <typename Whisper>
RunValues run_tapped(Whisper& whisper, const ComparisonRequest& request,
                     std::map<std::string, std::map<std::string, EdgeInfo>>& info) {
    RunValues values;
    auto tap_blocks = [&](const std::string& entry, int64_t tokens) {
        TapSet taps;
        for (const TappableEdge& edge : whisper.tappable_edges(entry, tokens)) {
            if (!edge.block_output) continue;
            taps.add(edge.name);
            info[entry][edge.name] = {edge.op};
        }
        return taps;
    };
    const auto keep = [&](const std::string& entry, const TapSet& taps) {
        for (const TappedValue& value : taps.values()) {
            if (value.filled) values[entry][value.name] = value;
        }
    };
    if (request.tokens.empty()) {
        TapSet taps = tap_blocks("encode", 1);
        whisper.set_taps(&taps);
        whisper.encode(request.mel);
        whisper.set_taps(nullptr);
        keep("encode", taps);
        return values;
    }
    const auto count = static_cast<int64_t>(request.tokens.size());
    TapSet heard = tap_blocks("listen", 1);
    whisper.set_taps(&heard);
    whisper.listen(request.mel);
    TapSet decoded = tap_blocks("prefill", count);
    whisper.set_taps(&decoded);
    whisper.prefill(HostTensor::i32({1, count}, request.tokens));
    whisper.set_taps(nullptr);
    keep("listen", heard);
    keep("prefill", decoded);
    return values;
}

RunValues run_one(const ComparedRun& run, const ComparisonRequest& request,
                  std::map<std::string, std::map<std::string, EdgeInfo>>& info) {
    if (run.backend == PlanBackend::cuda) {
        CudaWhisper whisper(*run.checkpoint, 1, 0, run.label);
        return run_tapped(whisper, request, info);
    }
    CpuWhisper whisper(*run.checkpoint);
    return run_tapped(whisper, request, info);
}

void check_request(const ComparedRun& a, const ComparedRun& b, const ComparisonRequest& request) {
    if (a.checkpoint == nullptr || b.checkpoint == nullptr) {
        throw TapError("a comparison needs two checkpoints");
    }
    const auto& da = a.checkpoint->binding.values.dims;
    const auto& db = b.checkpoint->binding.values.dims;
    for (const char* dim : {"Mels", "Frames", "D", "Heads", "Inner", "EncoderLayers",
                            "DecoderLayers", "Vocab", "MaxTokens"}) {
        if (da.at(dim) != db.at(dim)) {
            throw TapError("the two models differ in " + std::string(dim) + ": " + a.label +
                           " has " + std::to_string(da.at(dim)) + ", " + b.label + " has " +
                           std::to_string(db.at(dim)));
        }
    }
    const std::vector<int64_t> want = {1, da.at("Mels"), da.at("Frames")};
    if (request.mel.shape() != want) {
        throw std::invalid_argument("the mel is " + request.mel.shape_str() + ", the model takes " +
                                    program::shape_str(want));
    }
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_number(double value) {
    if (!std::isfinite(value)) return "null";
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

}  // namespace

BlockError tensor_error(const HostTensor& a, const HostTensor& b) {
    BlockError error;
    error.shape = a.shape();
    if (a.shape() != b.shape()) {
        error.relative_l2 = kInfinity;
        error.max_abs = kInfinity;
        return error;
    }
    const auto x = a.f32_values();
    const auto y = b.f32_values();
    double diff2 = 0.0;
    double norm2 = 0.0;
    bool nonfinite = false;
    for (size_t i = 0; i < x.size(); ++i) {
        const bool fx = std::isfinite(x[i]);
        const bool fy = std::isfinite(y[i]);
        if (fx != fy) ++error.nonfinite;
        if (!fx || !fy) {
            nonfinite = true;
            continue;
        }
        const double d = static_cast<double>(y[i]) - static_cast<double>(x[i]);
        diff2 += d * d;
        norm2 += static_cast<double>(x[i]) * static_cast<double>(x[i]);
        error.max_abs = std::max(error.max_abs, std::fabs(d));
        error.max_abs_a = std::max(error.max_abs_a, std::fabs(static_cast<double>(x[i])));
    }
    error.relative_l2 = nonfinite     ? kInfinity
                        : norm2 > 0.0 ? std::sqrt(diff2 / norm2)
                                      : std::sqrt(diff2);
    return error;
}

BlockComparison compare_blocks(const ComparedRun& a, const ComparedRun& b,
                               const ComparisonRequest& request) {
    check_request(a, b, request);
    std::map<std::string, std::map<std::string, EdgeInfo>> info;
    BlockComparison comparison;
    comparison.label_a = a.label;
    comparison.label_b = b.label;
    const auto stop = [&] {
        comparison.cancelled = request.cancelled && request.cancelled();
        return comparison.cancelled;
    };
    if (stop()) return comparison;
    if (request.progress) request.progress(a.label);
    RunValues first = run_one(a, request, info);
    if (stop()) return comparison;
    if (request.progress) request.progress(b.label);
    RunValues second = run_one(b, request, info);
    if (stop()) return comparison;
    const bool keep = request.kept == KeptValues::both_runs;
    for (auto& [entry, values] : first) {
        auto other = second.find(entry);
        if (other == second.end()) continue;
        for (auto& [name, value] : values) {
            auto same = other->second.find(name);
            if (same == other->second.end()) continue;
            BlockError error = tensor_error(value.tensor, same->second.tensor);
            error.name = name;
            error.entry = entry;
            error.op = info[entry][name].op;
            if (keep) {
                error.value_a = std::move(value.tensor);
                error.value_b = std::move(same->second.tensor);
            }
            comparison.blocks.push_back(std::move(error));
        }
    }
    std::stable_sort(
        comparison.blocks.begin(), comparison.blocks.end(),
        [](const BlockError& x, const BlockError& y) { return x.relative_l2 > y.relative_l2; });
    return comparison;
}

std::string comparison_text(const BlockComparison& comparison) {
    std::ostringstream out;
    out << "# " << comparison.label_b << " against " << comparison.label_a << ": "
        << comparison.blocks.size() << " block outputs, largest relative error first\n";
    char line[64];
    out << "  rel_l2      max_abs     max|a|      entry    shape             block\n";
    for (const BlockError& e : comparison.blocks) {
        std::snprintf(line, sizeof line, "  %-10.3e  %-10.3e  %-10.3e  ", e.relative_l2, e.max_abs,
                      e.max_abs_a);
        std::string shape = program::shape_str(e.shape);
        shape.resize(std::max<size_t>(shape.size(), 16), ' ');
        std::string entry = e.entry;
        entry.resize(std::max<size_t>(entry.size(), 7), ' ');
        out << line << entry << "  " << shape << "  " << e.name;
        if (e.nonfinite > 0) out << "  (" << e.nonfinite << " values NaN or Inf in one run only)";
        out << "\n";
    }
    return out.str();
}

std::string comparison_json(const BlockComparison& comparison) {
    std::ostringstream out;
    out << "{\"a\": " << json_string(comparison.label_a)
        << ", \"b\": " << json_string(comparison.label_b) << ", \"blocks\": [";
    for (size_t i = 0; i < comparison.blocks.size(); ++i) {
        const BlockError& e = comparison.blocks[i];
        out << (i == 0 ? "\n  " : ",\n  ") << "{\"name\": " << json_string(e.name)
            << ", \"entry\": " << json_string(e.entry) << ", \"op\": " << json_string(e.op)
            << ", \"shape\": [";
        for (size_t d = 0; d < e.shape.size(); ++d) out << (d == 0 ? "" : ", ") << e.shape[d];
        out << "], \"relative_l2\": " << json_number(e.relative_l2)
            << ", \"max_abs\": " << json_number(e.max_abs)
            << ", \"max_abs_a\": " << json_number(e.max_abs_a) << ", \"nonfinite\": " << e.nonfinite
            << "}";
    }
    out << (comparison.blocks.empty() ? "]}\n" : "\n]}\n");
    return out.str();
}

}  // namespace earshot::backend
