// The plan listing: an entry planned as the backends plan it (WhisperPlans), each step turned into
// the kernels its backend launches (plan_kernels.h), the totals, and the listing as text.
#include "earshot/engine/backend/plan_listing.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "backend/cuda/cuda_cross_kv_fusion.h"
#include "backend/cuda/cuda_encoder_fusions.h"
#include "backend/cuda/cuda_launch_rules.h"
#include "plan_kernels.h"
#include "whisper_plans.h"

namespace earshot::backend {

using program::OpKind;

// 1536 -> "1.50 KiB"; bytes under 1 KiB as they are.
std::string plan_bytes_text(int64_t bytes) {
    char text[32];
    if (bytes < 1024) {
        std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
    } else if (bytes < 1024 * 1024) {
        std::snprintf(text, sizeof text, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
    } else {
        std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / 1048576.0);
    }
    return text;
}

std::string plan_flops_text(int64_t flops) {
    char text[32];
    if (flops == 0) return "-";
    if (flops < 1000000) {
        std::snprintf(text, sizeof text, "%.2f KFLOP", static_cast<double>(flops) / 1e3);
    } else if (flops < 1000000000) {
        std::snprintf(text, sizeof text, "%.2f MFLOP", static_cast<double>(flops) / 1e6);
    } else {
        std::snprintf(text, sizeof text, "%.2f GFLOP", static_cast<double>(flops) / 1e9);
    }
    return text;
}

std::optional<PlanBackend> parse_plan_backend(std::string_view name) {
    if (name == "cpu") return PlanBackend::cpu;
    if (name == "cuda") return PlanBackend::cuda;
    return std::nullopt;
}

std::string_view plan_backend_name(PlanBackend backend) {
    return backend == PlanBackend::cuda ? "cuda" : "cpu";
}

const std::vector<std::string>& listed_entries() {
    static const std::vector<std::string> entries = {"step", "prefill", "listen", "encode"};
    return entries;
}

int64_t PlanListing::read_bytes() const {
    int64_t total = 0;
    for (const PlanKernel& k : kernels) total += k.read_bytes;
    return total;
}

int64_t PlanListing::written_bytes() const {
    int64_t total = 0;
    for (const PlanKernel& k : kernels) total += k.written_bytes;
    return total;
}

int64_t PlanListing::flops() const {
    int64_t total = 0;
    for (const PlanKernel& k : kernels) total += k.flops;
    return total;
}

PlanListing list_plan(const model::WhisperBinding& binding, const PlanListingRequest& request) {
    const auto& entries = listed_entries();
    if (std::find(entries.begin(), entries.end(), request.entry) == entries.end()) {
        throw PlanListingError("no entry \"" + request.entry +
                               "\" to list; the entries are step, prefill, listen and encode");
    }
    if (request.rows < 1) {
        throw PlanListingError("rows must be 1 or more, got " + std::to_string(request.rows));
    }
    const int64_t max_tokens = binding.values.dims.at("MaxTokens");
    const bool prefill = request.entry == "prefill";
    if (prefill && (request.tokens < 1 || request.tokens > max_tokens)) {
        throw PlanListingError("prefill tokens must be 1 .. " + std::to_string(max_tokens) +
                               " (the model's MaxTokens), got " + std::to_string(request.tokens));
    }
    WhisperPlans plans(binding);
    // The plan as a loaded checkpoint runs it: an absent optional parameter reads as none.
    ExecutionPlan plan =
        plans.plan(request.entry, request.rows,
                   entry_dims(binding, request.entry, request.rows, prefill ? request.tokens : 0));
    for (Slot& slot : plan.slots) {
        if (slot.kind != SlotKind::param) continue;
        const bool held =
            request.has_param ? request.has_param(slot.path) : !slot.path.ends_with("k_proj.bias");
        if (!held) slot.kind = SlotKind::none;
    }

    PlanListing listing;
    listing.entry = request.entry;
    listing.backend = request.backend;
    listing.rows = request.rows;
    listing.tokens = prefill ? request.tokens : 0;
    listing.weight_dtype = binding.config.weight_dtype;
    // The CPU keeps f16 matrices f16 and widens the rest (cpu_weights.h); it decodes an f16
    // checkpoint with f16 caches (cpu_decoder_model.cpp). The CUDA module keeps f16 GEMM
    // operands and f16 caches whatever the checkpoint holds.
    const StoredAs matrices = binding.config.weight_dtype == "f16" ? StoredAs::f16 : StoredAs::f32;
    StoredAs caches = request.backend == PlanBackend::cuda ? StoredAs::f16 : matrices;
    if (!request.cache_dtype.empty()) {
        if (request.cache_dtype != "f16" &&
            (request.cache_dtype != "f32" || request.backend == PlanBackend::cuda)) {
            throw PlanListingError("the " + std::string(plan_backend_name(request.backend)) +
                                   " backend keeps no " + request.cache_dtype + " caches");
        }
        caches = request.cache_dtype == "f16" ? StoredAs::f16 : StoredAs::f32;
    }
    listing.cache_dtype = stored_name(caches);
    const bool fused = cuda_fused_attention_enabled();
    std::vector<cuda::StepFusion> fusions = request.backend == PlanBackend::cuda
                                                ? cuda_step_fusions(plan)
                                                : std::vector<cuda::StepFusion>();
    if (request.weight_blocks) {  // as the module: a group of mixed weights runs unfused
        cuda::unfuse_mixed_weights(fusions, [&](int64_t t) {
            const PlanStep& linear = plan.steps[static_cast<size_t>(t)];
            const Slot& w = plan.slots[static_cast<size_t>(linear.inputs.at(1))];
            return w.kind == SlotKind::param ? request.weight_blocks(w.path) : std::string();
        });
    }
    if (request.backend == PlanBackend::cuda && fused && !cuda::old_kernels_enabled().encoder) {
        // As the module: an encoder layer's halves fused (cuda_encoder_fusions.h).
        cuda::apply_encoder_fusions(plan, fusions, [&](int64_t t) {
            const PlanStep& linear = plan.steps[static_cast<size_t>(t)];
            const Slot& w = plan.slots[static_cast<size_t>(linear.inputs.at(1))];
            return w.kind == SlotKind::param && request.weight_blocks
                       ? request.weight_blocks(w.path)
                       : std::string();
        });
    }
    if (request.backend == PlanBackend::cuda && !cuda::old_kernels_enabled().cross_kv) {
        // As the module: listen's cross keys and values fused (cuda_cross_kv_fusion.h).
        cuda::apply_cross_kv_fusions(plan, fusions, [&](int64_t t) {
            const PlanStep& linear = plan.steps[static_cast<size_t>(t)];
            const Slot& w = plan.slots[static_cast<size_t>(linear.inputs.at(1))];
            return w.kind == SlotKind::param && request.weight_blocks
                       ? request.weight_blocks(w.path)
                       : std::string();
        });
    }
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const PlanStep& step = plan.steps[s];
        if (step.alias) {
            ++listing.views;
            continue;
        }
        std::vector<PlanKernel> kernels =
            request.backend == PlanBackend::cuda
                ? cuda_step_kernels(plan, s, fusions, fused, request.weight_blocks)
                : cpu_step_kernels(plan, step, matrices, caches);
        for (PlanKernel& k : kernels) listing.kernels.push_back(std::move(k));
    }
    return listing;
}

std::string plan_total_line(const PlanListing& listing) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "TOTAL: %zu kernels, %.2f MiB read, %.2f MiB written, %.3f GFLOP",
                  listing.kernels.size(), static_cast<double>(listing.read_bytes()) / 1048576.0,
                  static_cast<double>(listing.written_bytes()) / 1048576.0,
                  static_cast<double>(listing.flops()) / 1e9);
    return text;
}

std::string plan_listing_text(const PlanListing& listing) {
    std::ostringstream out;
    out << "# " << listing.entry << " on " << plan_backend_name(listing.backend) << ", rows "
        << listing.rows;
    if (listing.tokens > 0) out << ", tokens " << listing.tokens;
    out << ": weights " << listing.weight_dtype << ", caches " << listing.cache_dtype << "; "
        << listing.views << " view" << (listing.views == 1 ? "" : "s") << " launch nothing\n";
    struct Row {
        std::string index, kernel, scope, read, written, flops, operands;
    };
    std::vector<Row> rows;
    rows.push_back({"#", "kernel", "scope", "read", "written", "FLOP", "inputs -> outputs"});
    for (size_t i = 0; i < listing.kernels.size(); ++i) {
        const PlanKernel& k = listing.kernels[i];
        std::string operands;
        for (const PlanOperand& in : k.inputs) {
            operands += (operands.empty() ? "" : ", ") + in.str();
        }
        operands += " ->";
        for (size_t o = 0; o < k.outputs.size(); ++o) {
            operands += (o == 0 ? " " : ", ") + k.outputs[o].str();
        }
        rows.push_back({std::to_string(i), k.kernel,
                        k.scope.empty() ? std::string("(entry)") : k.scope,
                        plan_bytes_text(k.read_bytes), plan_bytes_text(k.written_bytes),
                        plan_flops_text(k.flops), operands});
    }
    size_t widths[6] = {};
    for (const Row& r : rows) {
        const std::string* cells[6] = {&r.index, &r.kernel,  &r.scope,
                                       &r.read,  &r.written, &r.flops};
        for (size_t c = 0; c < 6; ++c) widths[c] = std::max(widths[c], cells[c]->size());
    }
    for (const Row& r : rows) {
        const std::string* cells[6] = {&r.index, &r.kernel,  &r.scope,
                                       &r.read,  &r.written, &r.flops};
        std::string line;
        for (size_t c = 0; c < 6; ++c) {
            const std::string& cell = *cells[c];
            const std::string pad(widths[c] - cell.size(), ' ');
            // Numbers right-aligned, names left-aligned.
            line += (c == 0 || c >= 3) ? pad + cell : cell + pad;
            line += "  ";
        }
        line += r.operands;
        out << line << "\n";
    }
    out << plan_total_line(listing) << "\n";
    return out.str();
}

}  // namespace earshot::backend
