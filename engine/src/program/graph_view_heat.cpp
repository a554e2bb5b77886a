// Mapping profiled step scopes back to the traced graph's calls, and the share of time per scope.
#include "earshot/engine/program/graph_view_heat.h"

#include <cctype>
#include <vector>

namespace earshot::program {

namespace {

// Whether the step scope `concrete` is the label path `pattern` with each loop index `[name]`
// replaced by `.i` (a literal `[name]` in the step scope matches too).
bool path_matches(std::string_view pattern, std::string_view concrete) {
    size_t i = 0;
    size_t j = 0;
    while (i < pattern.size()) {
        if (pattern[i] == '[') {
            const size_t close = pattern.find(']', i);
            if (close != std::string_view::npos) {
                const std::string_view bracket = pattern.substr(i, close + 1 - i);
                if (concrete.substr(j, bracket.size()) == bracket) {
                    i = close + 1;
                    j += bracket.size();
                    continue;
                }
                if (j >= concrete.size() || concrete[j] != '.') return false;
                const size_t digits = ++j;
                while (j < concrete.size() &&
                       std::isdigit(static_cast<unsigned char>(concrete[j]))) {
                    ++j;
                }
                if (j == digits) return false;
                i = close + 1;
                continue;
            }
        }
        if (j >= concrete.size() || pattern[i] != concrete[j]) return false;
        ++i;
        ++j;
    }
    return j == concrete.size();
}

// The label path of every call scope, as a plan step records it before index substitution.
std::vector<std::string> call_paths(const Graph& graph) {
    std::vector<std::string> paths(graph.scopes.size());
    for (size_t i = 1; i < graph.scopes.size(); ++i) {
        const Scope& s = graph.scopes[i];
        const std::string& parent = paths[static_cast<size_t>(s.parent)];
        if (s.kind != ScopeKind::call) {
            paths[i] = parent;
            continue;
        }
        paths[i] = parent.empty() ? s.label : parent + " > " + s.label;
    }
    return paths;
}

ScopeId find_scope(const Graph& graph, const std::vector<std::string>& paths,
                   std::string_view step_scope) {
    if (step_scope.empty()) return kRootScope;
    for (size_t i = 1; i < graph.scopes.size(); ++i) {
        if (graph.scopes[i].kind == ScopeKind::call && path_matches(paths[i], step_scope)) {
            return static_cast<ScopeId>(i);
        }
    }
    return -1;
}

}  // namespace

ScopeId scope_of_step(const Graph& graph, std::string_view step_scope) {
    return find_scope(graph, call_paths(graph), step_scope);
}

std::map<ScopeId, double> scope_time_shares(const Graph& graph,
                                            std::span<const ScopeTiming> timings) {
    const std::vector<std::string> paths = call_paths(graph);
    std::map<std::string, ScopeId, std::less<>> found;  // step scopes repeat once per layer
    std::map<ScopeId, double> ms_in;
    double total_ms = 0.0;
    for (const ScopeTiming& timing : timings) {
        total_ms += timing.ms;
        auto at = found.find(timing.scope);
        if (at == found.end()) {
            at = found.emplace(timing.scope, find_scope(graph, paths, timing.scope)).first;
        }
        for (ScopeId s = at->second; s > kRootScope;
             s = graph.scopes[static_cast<size_t>(s)].parent) {
            ms_in[s] += timing.ms;
        }
    }
    std::map<ScopeId, double> shares;
    if (!(total_ms > 0.0)) return shares;
    for (const auto& [scope, ms] : ms_in) shares[scope] = ms / total_ms;
    return shares;
}

}  // namespace earshot::program
