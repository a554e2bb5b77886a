// Building the drawn view of a traced graph: visibility by call depth, representatives of
// hidden ops, deduplicated typed edges.
#include "earshot/engine/program/graph_view.h"

#include <map>
#include <set>
#include <tuple>

namespace earshot::program {

namespace {

enum class Visibility { shown, group, collapsed, hidden };

std::string scope_id(ScopeId s) { return "g" + std::to_string(s); }

}  // namespace

const ViewNode* GraphView::node_labelled(std::string_view label) const {
    for (const auto& n : nodes) {
        if (n.label == label) return &n;
    }
    return nullptr;
}

GraphView build_view(const Graph& graph, const ViewOptions& options) {
    GraphView view;
    view.name = graph.name;
    auto label_of = [&](const Type& t) {
        return options.binding ? type_label(t, *options.binding) : type_label(t);
    };
    // Inputs and outputs show their declared type in full, or the bound short form.
    auto full_label = [&](const Type& t) { return options.binding ? label_of(t) : t.str(); };

    // How each scope is drawn. Parents precede children in the scope table.
    std::vector<Visibility> vis(graph.scopes.size(), Visibility::shown);
    std::vector<std::string> group_of(graph.scopes.size());  // the group drawn for content
    for (size_t i = 1; i < graph.scopes.size(); ++i) {
        const Scope& s = graph.scopes[i];
        auto parent = static_cast<size_t>(s.parent);
        if (vis[parent] == Visibility::collapsed || vis[parent] == Visibility::hidden) {
            vis[i] = Visibility::hidden;
            continue;
        }
        const auto id = static_cast<ScopeId>(i);
        const bool deep = s.call_depth > options.expand_depth && options.expand.count(id) == 0;
        if (s.kind == ScopeKind::call && (deep || options.collapse.count(id) > 0)) {
            vis[i] = Visibility::collapsed;
            group_of[i] = group_of[parent];
            continue;
        }
        vis[i] = Visibility::group;
        group_of[i] = scope_id(id);
        ViewGroup g;
        g.id = group_of[i];
        g.kind = s.kind == ScopeKind::loop ? "loop" : "call";
        g.label = s.label;
        if (s.kind == ScopeKind::loop) {
            g.sublabel =
                options.binding ? std::to_string(options.binding->dim(s.count)) : s.count.str();
        } else {
            g.sublabel = s.sublabel;
        }
        g.parent = group_of[parent];
        g.scope = id;
        view.groups.push_back(std::move(g));
    }

    // The drawn node standing for each op ("" when the op is not drawn).
    std::vector<std::string> rep(graph.ops.size());
    std::set<ScopeId> drawn_calls;
    for (size_t i = 0; i < graph.ops.size(); ++i) {
        const Op& op = graph.ops[i];
        // The outermost collapsed call holding the op, if any.
        ScopeId collapsed = -1;
        for (ScopeId s = op.scope; s > 0; s = graph.scopes[static_cast<size_t>(s)].parent) {
            if (vis[static_cast<size_t>(s)] == Visibility::collapsed) collapsed = s;
        }
        if (collapsed >= 0) {
            const Scope& call = graph.scopes[static_cast<size_t>(collapsed)];
            rep[i] = "c" + std::to_string(collapsed);
            if (drawn_calls.insert(collapsed).second) {
                view.nodes.push_back({rep[i], "call", call.label, call.sublabel,
                                      group_of[static_cast<size_t>(collapsed)], collapsed});
            }
            continue;
        }
        const std::string& group = group_of[static_cast<size_t>(op.scope)];
        std::string id = "n" + std::to_string(i);
        const Type& type = graph.type(op.output);
        switch (op.kind) {
            case OpKind::param:
            case OpKind::state:
                if (!options.show_params) continue;
                view.nodes.push_back({id, op.kind == OpKind::param ? "param" : "state", op.name,
                                      label_of(type), group, -1});
                break;
            case OpKind::input:
                view.nodes.push_back(
                    {id, "input", op.name + " : " + full_label(type), "", group, -1});
                break;
            default:
                view.nodes.push_back({id, "op", op.name, op.module, group, -1,
                                      std::string(op_description(op.kind))});
                break;
        }
        rep[i] = id;
    }

    std::set<std::tuple<std::string, std::string, ValueId>> seen;
    auto connect = [&](const std::string& from, const std::string& to, ValueId v) {
        if (from.empty() || to.empty() || from == to) return;
        if (!seen.emplace(from, to, v).second) return;
        view.edges.push_back({from, to, label_of(graph.type(v)), v});
    };
    for (size_t i = 0; i < graph.ops.size(); ++i) {
        for (ValueId in : graph.ops[i].inputs) {
            connect(rep[static_cast<size_t>(graph.values[static_cast<size_t>(in)].producer)],
                    rep[i], in);
        }
    }
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
        ValueId v = graph.outputs[k];
        const Type& type = graph.type(v);
        std::string id = "out" + std::to_string(k);
        std::string label = "result : " + full_label(type);
        view.nodes.push_back({id, "output", label, "", "", -1});
        connect(rep[static_cast<size_t>(graph.values[static_cast<size_t>(v)].producer)], id, v);
    }
    return view;
}

}  // namespace earshot::program
