// compare_runs: input and checkpoints prepared, compare_blocks run with both runs' values kept,
// the blocks converted to ui::CompareRow with their symbolic types and graph call ids.
#include "gui/inspector/compare_runs.h"

#include <QObject>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "cli/backend_option.h"
#include "cli/debug/debug_model_input.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/audio/log_mel.h"
#include "earshot/engine/backend/block_comparison.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/model/whisper_model.h"

namespace earshot::app {

namespace {

constexpr int kSampleRateHz = 16000;  // Whisper's input rate
constexpr int kHopSamples = 160;      // one mel frame (10 ms at 16 kHz)

QString qs(const std::string& text) { return QString::fromStdString(text); }

// The window of the file's audio from `start_s`, as the model's [1, Mels, Frames] log-mel.
backend::HostTensor window_mel(const model::WhisperCheckpoint& checkpoint, const std::string& path,
                               double start_s) {
    const auto& dims = checkpoint.binding.values.dims;
    const int64_t mels = dims.at("Mels");
    const int64_t frames = dims.at("Frames");
    const std::vector<float> samples = audio::decode_file(std::filesystem::path(path)).samples;
    const auto start =
        std::min(samples.size(), static_cast<size_t>(std::max(0.0, start_s) * kSampleRateHz));
    const std::span<const float> rest(samples.data() + start, samples.size() - start);
    const audio::LogMel mel = audio::log_mel_window(
        rest.first(std::min(rest.size(), static_cast<size_t>(frames) * kHopSamples)),
        static_cast<int>(mels), static_cast<int>(frames));
    return backend::HostTensor::f32({1, mels, frames}, mel.values);
}

void require_cuda(const std::string& backend) {
    if (backend != "cuda") return;
    try {
        require_cuda_if_chosen(backend::BackendChoice::cuda);
    } catch (const backend::CudaError& error) {
        throw std::runtime_error("CUDA cannot run here: " +
                                 backend::cuda_unavailable_reason(error));
    }
}

std::string file_name(const std::string& path) {
    const std::filesystem::path p(path);
    return (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
}

// For each row: its symbolic type and the calls of its entry's traced graph returning it.
void map_to_graph(const model::WhisperBinding& binding, int64_t tokens,
                  QList<ui::CompareRow>& rows) {
    struct Entry {
        program::Graph graph;
        std::vector<backend::TappableEdge> edges;
    };
    std::map<std::string, Entry> entries;
    for (ui::CompareRow& row : rows) {
        const std::string name = row.entry.toStdString();
        auto at = entries.find(name);
        if (at == entries.end()) {
            backend::TapPlanShape shape;
            shape.tokens = std::max<int64_t>(1, tokens);
            at = entries
                     .emplace(name, Entry{model::trace_whisper(name),
                                          backend::list_tappable_edges(binding, name, shape)})
                     .first;
        }
        const backend::TappableEdge* edge =
            backend::find_edge(at->second.edges, row.name.toStdString());
        if (edge == nullptr) continue;
        row.symbolicType = qs(edge->symbolic_type);
        const program::Graph& graph = at->second.graph;
        for (size_t s = 1; s < graph.scopes.size(); ++s) {
            const program::Scope& scope = graph.scopes[s];
            if (scope.kind == program::ScopeKind::call && scope.result == edge->value) {
                row.callIds.append(QString::number(s));
            }
        }
    }
}

// A job's checkpoints, runs and request, ready for compare_blocks or compare_block.
struct PreparedComparison {
    model::WhisperCheckpoint a;
    std::optional<model::WhisperCheckpoint> b;
    backend::ComparedRun run_a;
    backend::ComparedRun run_b;
    backend::ComparisonRequest request;
};

std::unique_ptr<PreparedComparison> prepare(const CompareJob& job) {
    const bool two_models = !job.model_b.empty();
    if (job.model_path.empty()) throw std::runtime_error("no model is loaded");
    for (const std::string& name : {job.backend_a, job.backend_b}) {
        backend_named(name);  // "unknown backend 'X' (cpu or cuda)"
        require_cuda(name);
    }
    auto p = std::make_unique<PreparedComparison>(
        PreparedComparison{model::load_whisper_checkpoint(job.model_path), {}, {}, {}, {}});
    if (two_models) p->b.emplace(model::load_whisper_checkpoint(job.model_b));
    const auto thread_label = [](int threads) {
        return threads > 0 ? " x" + std::to_string(threads) : std::string();
    };
    p->run_a = {&p->a, backend_named(job.backend_a), job.backend_a, job.threads_a};
    p->run_b = {p->b ? &*p->b : &p->a, backend_named(job.backend_b), job.backend_b, job.threads_b};
    if (two_models) {
        p->run_a.label += " " + file_name(job.model_path);
        p->run_b.label += " " + file_name(job.model_b);
    }
    p->run_a.label += thread_label(job.threads_a);
    p->run_b.label += thread_label(job.threads_b);
    if (p->run_a.label == p->run_b.label) {
        p->run_a.label += " (A)";
        p->run_b.label += " (B)";
    }
    backend::ComparisonRequest& request = p->request;
    request.mel = job.mel_path.empty() ? window_mel(p->a, job.audio_path, job.start_s)
                                       : model_mel(p->a, "", job.mel_path);
    if (job.decoder) request.tokens = model_tokens("", p->a.binding.values.dims.at("Vocab"));
    request.kept = backend::KeptValues::both_runs;
    request.budget_bytes = job.budget_bytes;
    return p;
}

ui::CompareRow to_row(backend::BlockError& e) {
    ui::CompareRow row;
    row.name = qs(e.name);
    row.entry = qs(e.entry);
    row.op = qs(e.op);
    for (int64_t d : e.shape) row.shape.append(d);
    row.relativeError = e.relative_l2;
    row.maxAbsError = e.max_abs;
    row.maxAbsA = e.max_abs_a;
    row.nonfinite = e.nonfinite;
    const auto va = e.value_a.f32_values();
    const auto vb = e.value_b.f32_values();
    row.valuesA.assign(va.begin(), va.end());
    row.valuesB.assign(vb.begin(), vb.end());
    e.value_a = {};
    e.value_b = {};
    return row;
}

}  // namespace

ui::RunComparison compare_runs(const CompareJob& job, const CompareProgress& progress,
                               const std::function<bool()>& cancelled) {
    ui::RunComparison out;
    out.input = job.input_label;
    const bool two_models = !job.model_b.empty();
    try {
        // Reading, then each run (two per pass; the passes are known once the models are read).
        progress(
            two_models
                ? QObject::tr("Reading %1, %2 and the input\u2026")
                      .arg(qs(file_name(job.model_path)), qs(file_name(job.model_b)))
                : QObject::tr("Reading %1 and the input\u2026").arg(qs(file_name(job.model_path))),
            0, 3);
        const std::unique_ptr<PreparedComparison> p = prepare(job);
        backend::ComparisonRequest request = p->request;
        request.cancelled = cancelled;
        request.progress = [&](const std::string& label, int run, int runs) {
            progress(QObject::tr("Running %1 (%2 of %3)\u2026").arg(qs(label)).arg(run).arg(runs),
                     run, runs + 1);
        };
        backend::BlockComparison comparison = backend::compare_blocks(p->run_a, p->run_b, request);
        out.labelA = qs(comparison.label_a);
        out.labelB = qs(comparison.label_b);
        out.cancelled = comparison.cancelled;
        for (backend::BlockError& e : comparison.blocks) out.rows.append(to_row(e));
        map_to_graph(p->a.binding, static_cast<int64_t>(request.tokens.size()), out.rows);
    } catch (const std::exception& error) {
        out.rows.clear();
        out.error = QString::fromUtf8(error.what());
    }
    return out;
}

ui::CompareRow compare_one_block(const CompareJob& job, const QString& entry, const QString& name,
                                 QString& error) {
    ui::CompareRow row;
    row.entry = entry;
    row.name = name;
    try {
        const std::unique_ptr<PreparedComparison> p = prepare(job);
        backend::BlockError e = backend::compare_block(p->run_a, p->run_b, p->request,
                                                       entry.toStdString(), name.toStdString());
        row = to_row(e);
    } catch (const std::exception& failure) {
        error = QString::fromUtf8(failure.what());
    }
    return row;
}

}  // namespace earshot::app
