// `earshot graph --model PATH --entry NAME --expand N --format json|dot [--bind] [--params]`:
// the traced graph of one entry with the type of every edge.
#include <ostream>

#include "core/models/checkpoint_binding.h"
#include "core/models/entry_binding.h"
#include "earshot/app/commands.h"
#include "earshot/engine/model/whisper_model.h"
#include "earshot/engine/program/graph_view.h"

namespace earshot::app {

int run_graph(const GraphOptions& options, std::ostream& out, std::ostream& err) {
    auto binding = bind_checkpoint(options.model_path, "graph", err);
    if (!binding) return kExitBadInput;

    const auto& root = model::WhisperModel::declaration();
    std::string entries;
    bool known = false;
    for (const auto& f : root.functions) {
        if (f.visibility != program::Visibility::entry) continue;
        entries += (entries.empty() ? "" : ", ") + f.name;
        known = known || f.name == options.entry;
    }
    if (!known) {
        err << "earshot graph: no entry named \"" << options.entry << "\" (entries: " << entries
            << ")\n";
        return kExitBadInput;
    }
    if (options.expand_depth < 0) {
        err << "earshot graph: --expand must be 0 or more, got " << options.expand_depth << "\n";
        return kExitBadInput;
    }

    program::Graph graph = model::trace_whisper(options.entry);
    program::ConcreteBinding values = entry_binding(*binding);
    program::ViewOptions view_options;
    view_options.expand_depth = options.expand_depth;
    view_options.show_params = options.show_params;
    if (options.types == GraphTypes::bound) view_options.binding = &values;
    program::GraphView view = program::build_view(graph, view_options);
    view.name = options.entry;
    if (options.types == GraphTypes::bound) {
        for (const auto& [name, value] : binding->generics) view.binding.emplace_back(name, value);
        for (const char* name : {"Batch", "B", "A", "S"}) {
            view.binding.emplace_back(name, std::to_string(values.dims.at(name)));
        }
    }
    out << (options.format == GraphFormat::dot ? program::to_dot(view) : program::to_json(view));
    if (options.format == GraphFormat::json) out << "\n";
    return kExitOk;
}

}  // namespace earshot::app
