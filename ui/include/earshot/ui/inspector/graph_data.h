// GraphData: one drawn graph of an entry as plain Qt values (nodes, call and loop groups, typed
// edges), and GraphProvider, through which the graph view asks the app for a graph.
#pragma once

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <functional>

namespace earshot::ui {

struct GraphNode {
    QString id;             // unique in the graph; edges name it
    QString kind;           // "input", "output", "op", "call", "param", "state"
    QString label;          // "conv1d", "self_attn.forward", "mel : Tensor[B, Mels, Frames; T]"
    QString sublabel;       // "whisper", "Attention<D, Heads, T>", "" when none
    QString group;          // id of the innermost group holding the node, "" at the top
    QString callId;         // call nodes: the call, stable across expansions; "" otherwise
    QString description{};  // ops: what the op computes, shown on hover and searched; "" else
};

struct GraphGroup {
    QString id;
    QString kind;      // "call" or "loop"
    QString label;     // "encoder_layers[layer].forward", "for layer in encoder_layers"
    QString sublabel;  // calls: the callee's type; loops: the repeat count, "x 32"
    QString parent;    // "" at the top
    QString callId;    // the call or loop, stable across expansions (same id as its call node)
};

struct GraphEdge {
    QString from;
    QString to;
    QString label;  // the value's type: "T[B, Frames, Mels]" or bound "f16[1, 3000, 128]"
    // The value's tappable name (what the inspector asks the engine for), "" when it has none;
    // and how a tap of it is titled ("encoder_layers[7].forward (1 of 4)"), or, without a name,
    // why it has none ("it is fused into the op after it").
    QString tap{};
    QString tapTitle{};
    // For a value inside loops: the tap name of every iteration, in order
    // ("encoder_layers[0].forward", "encoder_layers[1].forward", ...), `tap` among them; a tap's
    // tab offers them as its layer picker. Empty outside loops.
    QStringList tapIterations{};
};

struct GraphData {
    QString entry;
    QList<GraphNode> nodes;
    QList<GraphGroup> groups;  // parents before children
    QList<GraphEdge> edges;
    QString error;  // set when the graph could not be built; nothing else is then
};

// What the view asks for: an entry with calls opened to `expandDepth`, and single calls opened
// (`expanded`) or closed (`collapsed`) beyond that, labelled with symbolic or concrete types.
struct GraphRequest {
    QString entry;
    int expandDepth = 1;
    QSet<QString> expanded;   // call ids
    QSet<QString> collapsed;  // call ids; win over `expanded`
    bool concrete = false;    // types under the checkpoint's binding: "f16[1, 1500, 384]"
};

using GraphProvider = std::function<GraphData(const GraphRequest&)>;

}  // namespace earshot::ui
