// The command-line commands of the earshot executable that show the model: inspect and graph.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace earshot::app {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;  // missing or malformed model file, bad entry name, ...

struct InspectOptions {
    // HF directory, model.safetensors (config.json beside it), ggml .bin, a catalog name; empty:
    // the app's model, else the embedded micro model
    std::string model_path;
};

enum class GraphFormat { json, dot };
enum class GraphTypes { symbolic, bound };

struct GraphOptions {
    std::string model_path;
    std::string entry = "encode";
    int expand_depth = 1;  // call nodes nested deeper than this stay collapsed
    GraphFormat format = GraphFormat::json;
    GraphTypes types = GraphTypes::symbolic;  // --bind prints concrete dims instead
    bool show_params = false;                 // also draw param/state nodes
};

// Each prints its result to `out` and a one-line error to `err`; returns an exit code.
int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err);
int run_graph(const GraphOptions& options, std::ostream& out, std::ostream& err);

}  // namespace earshot::app
