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
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/program/types.h"

namespace earshot::backend {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Block values of one run: entry -> name -> value.
using RunValues = std::map<std::string, std::map<std::string, HostTensor>>;

// A block output one comparison compares: where it is, its op, its f32 bytes.
struct BlockEdge {
    std::string entry;
    std::string name;
    std::string op;
    int64_t bytes = 0;
};

int64_t f32_bytes(const std::vector<int64_t>& shape) {
    int64_t n = 4;
    for (const int64_t d : shape) n *= d;
    return n;
}

// The entries a request runs: encode, or listen then prefill.
std::vector<std::string> run_entries(const ComparisonRequest& request) {
    if (request.tokens.empty()) return {"encode"};
    return {"listen", "prefill"};
}

using Names = std::map<std::string, std::vector<std::string>>;  // entry -> tap names

// The block outputs the request's entries have under `binding`, in plan order.
std::vector<BlockEdge> block_edges(const model::WhisperBinding& binding,
                                   const ComparisonRequest& request) {
    std::vector<BlockEdge> edges;
    for (const std::string& entry : run_entries(request)) {
        TapPlanShape shape;
        shape.tokens = std::max<int64_t>(1, static_cast<int64_t>(request.tokens.size()));
        for (const TappableEdge& edge : list_tappable_edges(binding, entry, shape)) {
            if (edge.block_output) {
                edges.push_back({entry, edge.name, edge.op, f32_bytes(edge.shape)});
            }
        }
    }
    return edges;
}

// Runs the request with taps on `names` (entry -> names); the values filled, moved out.
template <typename Whisper>
RunValues run_tapped(Whisper& whisper, const ComparisonRequest& request,
                     const std::map<std::string, std::vector<std::string>>& names) {
    RunValues values;
    const auto tapped = [&](const std::string& entry) {
        const auto at = names.find(entry);
        return at == names.end() ? TapSet{} : TapSet(at->second);
    };
    const auto keep = [&](const std::string& entry, TapSet& taps) {
        for (size_t i = 0; i < taps.values().size(); ++i) {
            TappedValue& value = taps.value_at(i);
            if (value.filled) values[entry][value.name] = std::move(value.tensor);
        }
    };
    if (request.tokens.empty()) {
        TapSet taps = tapped("encode");
        whisper.set_taps(&taps);
        whisper.encode(request.mel);
        whisper.set_taps(nullptr);
        keep("encode", taps);
        return values;
    }
    const auto count = static_cast<int64_t>(request.tokens.size());
    TapSet heard = tapped("listen");
    whisper.set_taps(&heard);
    whisper.listen(request.mel);
    whisper.set_taps(nullptr);
    keep("listen", heard);
    if (names.count("prefill") == 0) return values;
    TapSet decoded = tapped("prefill");
    whisper.set_taps(&decoded);
    whisper.prefill(HostTensor::i32({1, count}, request.tokens));
    whisper.set_taps(nullptr);
    keep("prefill", decoded);
    return values;
}

RunValues run_one(const ComparedRun& run, const ComparisonRequest& request, const Names& names) {
    if (run.backend == PlanBackend::cuda) {
        if (run.threads != 0) throw TapError(run.label + ": a thread count is for CPU runs only");
        CudaWhisper whisper(*run.checkpoint, 1, 0, run.label);
        return run_tapped(whisper, request, names);
    }
    CpuWhisper whisper(*run.checkpoint);
    whisper.set_threads(run.threads);
    return run_tapped(whisper, request, names);
}

int64_t held_bytes(const RunValues& values) {
    int64_t bytes = 0;
    for (const auto& [entry, tensors] : values) {
        for (const auto& [name, tensor] : tensors) {
            bytes += static_cast<int64_t>(tensor.f32_values().size()) * 4;
        }
    }
    return bytes;
}

// The passes: consecutive blocks of `edges` whose two values fit, with what is kept so far, in
// the budget (at least one block each); `keep` says which blocks' values are kept (within half
// the budget, in plan order). Decided from the sizes alone, before any run.
std::vector<std::vector<size_t>> schedule(const std::vector<BlockEdge>& edges, int64_t budget,
                                          bool keep_values, std::vector<bool>& keep) {
    std::vector<std::vector<size_t>> passes;
    keep.assign(edges.size(), false);
    int64_t kept = 0;
    for (size_t i = 0; i < edges.size();) {
        std::vector<size_t> pass = {i};
        int64_t working = 2 * edges[i].bytes;
        for (++i; i < edges.size() && kept + working + 2 * edges[i].bytes <= budget; ++i) {
            pass.push_back(i);
            working += 2 * edges[i].bytes;
        }
        for (const size_t k : pass) {
            if (keep_values && kept + 2 * edges[k].bytes <= budget / 2) {
                keep[k] = true;
                kept += 2 * edges[k].bytes;
            }
        }
        passes.push_back(std::move(pass));
    }
    return passes;
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

int64_t BlockError::value_bytes() const {
    return static_cast<int64_t>(value_a.f32_values().size() + value_b.f32_values().size()) * 4;
}

int64_t BlockComparison::kept_value_bytes() const {
    int64_t bytes = 0;
    for (const BlockError& block : blocks) bytes += block.value_bytes();
    return bytes;
}

BlockComparison compare_blocks(const ComparedRun& a, const ComparedRun& b,
                               const ComparisonRequest& request) {
    check_request(a, b, request);
    BlockComparison comparison;
    comparison.label_a = a.label;
    comparison.label_b = b.label;
    const auto stop = [&] {
        comparison.cancelled = request.cancelled && request.cancelled();
        if (comparison.cancelled) {
            comparison.blocks.clear();
            comparison.passes = 0;
        }
        return comparison.cancelled;
    };
    const std::vector<BlockEdge> edges = block_edges(a.checkpoint->binding, request);
    std::vector<bool> keep;
    const std::vector<std::vector<size_t>> passes =
        schedule(edges, request.budget_bytes, request.kept == KeptValues::both_runs, keep);
    const int runs = 2 * static_cast<int>(passes.size());
    int run = 0;
    // entry -> name -> error: the order the blocks had before passes (ties keep it).
    std::map<std::string, std::map<std::string, BlockError>> errors;
    int64_t kept_bytes = 0;
    for (const std::vector<size_t>& pass : passes) {
        Names names;
        for (const size_t i : pass) names[edges[i].entry].push_back(edges[i].name);
        if (stop()) return comparison;
        if (request.progress) request.progress(a.label, ++run, runs);
        RunValues first = run_one(a, request, names);
        comparison.peak_value_bytes =
            std::max(comparison.peak_value_bytes, kept_bytes + held_bytes(first));
        if (stop()) return comparison;
        if (request.progress) request.progress(b.label, ++run, runs);
        RunValues second = run_one(b, request, names);
        comparison.peak_value_bytes = std::max(comparison.peak_value_bytes,
                                               kept_bytes + held_bytes(first) + held_bytes(second));
        ++comparison.passes;
        for (const size_t i : pass) {
            const BlockEdge& edge = edges[i];
            auto x = first[edge.entry].find(edge.name);
            auto y = second[edge.entry].find(edge.name);
            if (x == first[edge.entry].end() || y == second[edge.entry].end()) continue;
            BlockError error = tensor_error(x->second, y->second);
            error.name = edge.name;
            error.entry = edge.entry;
            error.op = edge.op;
            if (keep[i]) {
                error.value_a = std::move(x->second);
                error.value_b = std::move(y->second);
                kept_bytes += error.value_bytes();
            }
            errors[edge.entry][edge.name] = std::move(error);
        }
    }
    if (stop()) return comparison;
    for (auto& [entry, blocks] : errors) {
        for (auto& [name, error] : blocks) comparison.blocks.push_back(std::move(error));
    }
    std::stable_sort(
        comparison.blocks.begin(), comparison.blocks.end(),
        [](const BlockError& x, const BlockError& y) { return x.relative_l2 > y.relative_l2; });
    return comparison;
}

BlockError compare_block(const ComparedRun& a, const ComparedRun& b,
                         const ComparisonRequest& request, const std::string& entry,
                         const std::string& name) {
    check_request(a, b, request);
    const std::vector<std::string> entries = run_entries(request);
    if (std::find(entries.begin(), entries.end(), entry) == entries.end()) {
        throw TapError("this comparison runs no " + entry);
    }
    const Names names = {{entry, {name}}};
    RunValues first = run_one(a, request, names);
    RunValues second = run_one(b, request, names);
    auto x = first[entry].find(name);
    auto y = second[entry].find(name);
    if (x == first[entry].end() || y == second[entry].end()) {
        throw TapError("no block output '" + name + "' in " + entry + " of " +
                       (x == first[entry].end() ? a.label : b.label));
    }
    BlockError error = tensor_error(x->second, y->second);
    error.name = name;
    error.entry = entry;
    const std::vector<BlockEdge> edges = block_edges(a.checkpoint->binding, request);
    for (const BlockEdge& edge : edges) {
        if (edge.entry == entry && edge.name == name) error.op = edge.op;
    }
    error.value_a = std::move(x->second);
    error.value_b = std::move(y->second);
    return error;
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
