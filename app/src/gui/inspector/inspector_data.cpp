// Engine -> inspector plain data: InspectorData from the block declarations and the binding,
// GraphData from build_view, call-time shares from profiled step scopes.
#include "gui/inspector/inspector_data.h"

#include <QObject>
#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "core/models/entry_binding.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/model/whisper_model.h"
#include "earshot/engine/program/graph_view.h"
#include "earshot/engine/program/graph_view_heat.h"

namespace earshot::app {

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString visibility_name(program::Visibility visibility) {
    switch (visibility) {
        case program::Visibility::entry:
            return QStringLiteral("pub entry");
        case program::Visibility::pub_fn:
            return QStringLiteral("pub fn");
        case program::Visibility::private_fn:
            return QStringLiteral("fn");
    }
    return {};
}

QString member_kind(program::MemberKind kind) {
    switch (kind) {
        case program::MemberKind::param:
            return QStringLiteral("param");
        case program::MemberKind::state:
            return QStringLiteral("state");
        case program::MemberKind::sub:
            return QStringLiteral("sub");
    }
    return {};
}

bool is_entry(std::string_view name) {
    const auto& root = model::WhisperModel::declaration();
    return std::any_of(root.functions.begin(), root.functions.end(), [&](const auto& f) {
        return f.visibility == program::Visibility::entry && f.name == name;
    });
}

// Scope ids from the UI's call ids; ids that are no number are ignored.
std::set<program::ScopeId> scope_ids(const QSet<QString>& call_ids) {
    std::set<program::ScopeId> out;
    for (const QString& id : call_ids) {
        bool ok = false;
        const int scope = id.toInt(&ok);
        if (ok) out.insert(scope);
    }
    return out;
}

QString call_id(program::ScopeId scope) { return scope < 0 ? QString() : QString::number(scope); }

// `taps`: the entry's tappable values (null: none can be tapped). An edge inside a loop taps its
// first iteration, and its title says which (`encoder_layers[0].forward`, of how many); the names
// of all its iterations go with it (the tab's layer picker).
ui::GraphData to_graph_data(const program::GraphView& view, const program::Graph& graph,
                            const program::ConcreteBinding& values, bool concrete,
                            const std::vector<backend::TappableEdge>* taps) {
    ui::GraphData data;
    data.entry = qs(view.name);
    for (const auto& n : view.nodes) {
        data.nodes.append({qs(n.id), qs(n.kind), qs(n.label), qs(n.sublabel), qs(n.group),
                           call_id(n.scope), qs(n.description)});
    }
    for (const auto& g : view.groups) {
        QString sublabel = qs(g.sublabel);
        if (g.kind == "loop") {
            // One group for every iteration, with its repeat count.
            const program::Scope& loop = graph.scopes.at(static_cast<size_t>(g.scope));
            const QString count = QString::number(values.dim(loop.count));
            sublabel = concrete ? QStringLiteral("x %1").arg(count)
                                : QStringLiteral("x %1 = %2").arg(qs(loop.count.str()), count);
        }
        data.groups.append(
            {qs(g.id), qs(g.kind), qs(g.label), sublabel, qs(g.parent), call_id(g.scope)});
    }
    for (const auto& e : view.edges) {
        ui::GraphEdge edge{qs(e.from), qs(e.to), qs(e.label)};
        if (taps != nullptr && e.value != program::kNoValue) {
            const std::vector<const backend::TappableEdge*> carried =
                backend::edges_of_value(*taps, e.value);
            if (!carried.empty()) {
                edge.tap = qs(carried.front()->name);
                if (carried.size() > 1) {
                    for (const backend::TappableEdge* each : carried) {
                        edge.tapIterations.append(qs(each->name));
                    }
                }
                edge.tapTitle = carried.size() > 1
                                    ? QObject::tr("%1 (1 of %2)").arg(edge.tap).arg(carried.size())
                                    : edge.tap;
            } else {
                // Why there is no value to copy (tap.h: what a backend never holds).
                edge.tapTitle = QObject::tr(
                    "the backend holds no copy of it (an input, a parameter, a cache, or a result "
                    "fused into the op after it: tap that op's output)");
            }
        }
        data.edges.append(edge);
    }
    return data;
}

}  // namespace

ui::InspectorData inspector_data(const model::WhisperBinding& binding) {
    ui::InspectorData data;
    data.checkpoint = QString::fromStdString(binding.config.source.string());
    data.format = qs(std::string(checkpoint::format_name(binding.config.format)));
    data.dtypeSource = qs(binding.config.dtype_source);
    for (const auto& f : model::WhisperModel::declaration().functions) {
        if (f.visibility == program::Visibility::entry) {
            data.entries.append({qs(f.name), qs(f.signature())});
        }
    }
    for (const auto& [name, value] : binding.generics) data.generics.append({qs(name), qs(value)});

    std::vector<const program::BlockDecl*> blocks = model::whisper_blocks();
    std::sort(blocks.begin(), blocks.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    for (const program::BlockDecl* block : blocks) {
        ui::InspectorBlock out{qs(block->name), qs(block->header()), {}};
        for (const auto& m : block->members) {
            const std::string type =
                m.kind == program::MemberKind::sub ? m.sub.str() : m.type.str();
            out.members.append({member_kind(m.kind), qs(m.name), qs(type)});
        }
        for (const auto& f : block->functions) {
            out.members.append({visibility_name(f.visibility), qs(f.name),
                                qs(f.signature().substr(f.name.size()))});
        }
        data.blocks.append(std::move(out));
    }
    return data;
}

ui::GraphProvider graph_provider(const model::WhisperBinding& binding) {
    struct State {
        program::ConcreteBinding values;
        std::map<std::string, program::Graph, std::less<>> traced;
        model::WhisperBinding binding;
        // Per entry its tappable values; empty for an entry that has none (decode).
        std::map<std::string, std::vector<backend::TappableEdge>, std::less<>> taps;
    };
    auto state = std::make_shared<State>();
    state->values = entry_binding(binding);
    state->binding = binding;
    return [state](const ui::GraphRequest& request) {
        ui::GraphData data;
        data.entry = request.entry;
        const std::string entry = request.entry.toStdString();
        if (!is_entry(entry)) {
            data.error = QObject::tr("The model has no entry named \"%1\".").arg(request.entry);
            return data;
        }
        try {
            auto at = state->traced.find(entry);
            if (at == state->traced.end()) {
                at = state->traced.emplace(entry, model::trace_whisper(entry)).first;
            }
            program::ViewOptions options;
            options.expand_depth = request.expandDepth;
            options.expand = scope_ids(request.expanded);
            options.collapse = scope_ids(request.collapsed);
            if (request.concrete) options.binding = &state->values;
            program::GraphView view = program::build_view(at->second, options);
            view.name = entry;
            auto taps = state->taps.find(entry);
            if (taps == state->taps.end()) {
                std::vector<backend::TappableEdge> listed;
                const auto& entries = backend::tappable_entries();
                if (std::find(entries.begin(), entries.end(), entry) != entries.end()) {
                    listed = backend::list_tappable_edges(state->binding, entry);
                }
                taps = state->taps.emplace(entry, std::move(listed)).first;
            }
            return to_graph_data(view, at->second, state->values, request.concrete, &taps->second);
        } catch (const std::exception& error) {
            data.error = QObject::tr("Could not draw %1: %2")
                             .arg(request.entry, QString::fromUtf8(error.what()));
            return data;
        }
    };
}

QHash<QString, double> call_time_shares(const std::string& entry,
                                        std::span<const backend::StepTiming> timings) {
    // Traced once per entry, with the ops that are alone of their kind in their scope (a step
    // of that scope and kind is that op's time): live updates ask several times a second.
    struct Traced {
        program::Graph graph;
        std::map<std::pair<program::ScopeId, std::string>, int>
            lone_op;  // -> op index, -1: several
    };
    static std::mutex mutex;
    static std::map<std::string, Traced, std::less<>> traced;
    const Traced* found = nullptr;
    {
        const std::lock_guard lock(mutex);
        auto at = traced.find(entry);
        if (at == traced.end()) {
            Traced t{model::trace_whisper(entry), {}};
            for (size_t i = 0; i < t.graph.ops.size(); ++i) {
                const program::Op& op = t.graph.ops[i];
                const auto [slot, added] = t.lone_op.try_emplace(
                    {op.scope, std::string(program::op_kind_name(op.kind))}, static_cast<int>(i));
                if (!added) slot->second = -1;
            }
            at = traced.emplace(entry, std::move(t)).first;
        }
        found = &at->second;  // map nodes stay put
    }
    const program::Graph& graph = found->graph;
    std::vector<program::ScopeTiming> scoped;
    scoped.reserve(timings.size());
    std::map<std::pair<std::string, std::string>, double> ms_by_scope_op;
    double total_ms = 0.0;
    for (const auto& t : timings) {
        // The traced name is qualified by the block ("whisper.step").
        const size_t dot = t.entry.rfind('.');
        const std::string_view name =
            std::string_view(t.entry).substr(dot == std::string::npos ? 0 : dot + 1);
        if (!name.empty() && name != entry && !(entry == "encode" && name == "listen")) continue;
        scoped.push_back({t.scope, t.ms});
        ms_by_scope_op[{t.scope, t.op}] += t.ms;
        total_ms += t.ms;
    }
    QHash<QString, double> shares;
    for (const auto& [scope, share] : program::scope_time_shares(graph, scoped)) {
        shares.insert(call_id(scope), share);
    }
    if (!(total_ms > 0.0)) return shares;
    // Ops drawn as nodes of their own (outside every collapsed call): node id "n<op index>".
    for (const auto& [key, ms] : ms_by_scope_op) {
        const program::ScopeId scope = program::scope_of_step(graph, key.first);
        const auto op = found->lone_op.find({scope, key.second});
        if (scope >= 0 && op != found->lone_op.end() && op->second >= 0) {
            shares[QStringLiteral("n%1").arg(op->second)] += ms / total_ms;
        }
    }
    return shares;
}

}  // namespace earshot::app
