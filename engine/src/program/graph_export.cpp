// Writing a GraphView as JSON (for tools and the UI) and as Graphviz dot (for layout).
#include <map>
#include <nlohmann/json.hpp>

#include "earshot/engine/program/graph_view.h"

namespace earshot::program {

namespace {

nlohmann::ordered_json or_null(const std::string& s) {
    return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
}

std::string dot_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') {
            out += "\\n";  // a centred line break in a Graphviz label
            continue;
        }
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

}  // namespace

std::string to_json(const GraphView& view) {
    nlohmann::ordered_json j;
    j["name"] = view.name;
    if (!view.binding.empty()) {
        j["binding"] = nlohmann::ordered_json::object();
        for (const auto& [name, value] : view.binding) j["binding"][name] = value;
    }
    j["nodes"] = nlohmann::ordered_json::array();
    for (const auto& n : view.nodes) {
        j["nodes"].push_back({{"id", n.id},
                              {"kind", n.kind},
                              {"label", n.label},
                              {"sublabel", or_null(n.sublabel)},
                              {"group", or_null(n.group)}});
    }
    j["groups"] = nlohmann::ordered_json::array();
    for (const auto& g : view.groups) {
        j["groups"].push_back({{"id", g.id},
                               {"kind", g.kind},
                               {"label", g.label},
                               {"sublabel", or_null(g.sublabel)},
                               {"parent", or_null(g.parent)}});
    }
    j["edges"] = nlohmann::ordered_json::array();
    for (const auto& e : view.edges) {
        j["edges"].push_back({{"from", e.from}, {"to", e.to}, {"label", e.label}});
    }
    return j.dump(2);
}

std::string to_dot(const GraphView& view) {
    std::map<std::string, std::vector<const ViewNode*>> nodes_in;
    std::map<std::string, std::vector<const ViewGroup*>> groups_in;
    for (const auto& n : view.nodes) nodes_in[n.group].push_back(&n);
    for (const auto& g : view.groups) groups_in[g.parent].push_back(&g);

    std::string out = "digraph \"" + dot_escape(view.name) + "\" {\n";
    for (const auto& [name, value] : view.binding) out += "  // " + name + " = " + value + "\n";
    out += "  rankdir=TB;\n  graph [fontname=\"DejaVu Sans\", fontsize=11];\n";
    out += "  node [shape=box, fontname=\"DejaVu Sans\", fontsize=10];\n";
    out += "  edge [fontname=\"DejaVu Sans Mono\", fontsize=9];\n";
    auto emit_group = [&](auto&& self, const std::string& group, int depth) -> void {
        std::string pad(static_cast<size_t>(depth) * 2 + 2, ' ');
        for (const ViewNode* n : nodes_in[group]) {
            std::string label = n->label + (n->sublabel.empty() ? "" : "\n" + n->sublabel);
            std::string shape = n->kind == "input" || n->kind == "output" ? "ellipse"
                                : n->kind == "call"                       ? "box, style=bold"
                                : n->kind == "op"                         ? "box"
                                                                          : "note";
            out += pad + n->id + " [label=\"" + dot_escape(label) + "\", shape=" + shape + "];\n";
        }
        for (const ViewGroup* g : groups_in[group]) {
            out += pad + "subgraph cluster_" + g->id + " {\n";
            std::string label = g->label + (g->sublabel.empty() ? "" : "\n" + g->sublabel);
            out += pad + "  label=\"" + dot_escape(label) + "\";\n" + pad + "  style=dashed;\n";
            self(self, g->id, depth + 1);
            out += pad + "}\n";
        }
    };
    emit_group(emit_group, "", 0);
    for (const auto& e : view.edges) {
        out += "  " + e.from + " -> " + e.to + " [label=\"" + dot_escape(e.label) + "\"];\n";
    }
    return out + "}\n";
}

}  // namespace earshot::program
