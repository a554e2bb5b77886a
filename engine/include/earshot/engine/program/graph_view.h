// GraphView: what the graph command and the UI draw of a traced graph: the call nodes expanded
// to a chosen depth or one by one, groups for calls and loops, every edge labelled with its type.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/program/graph.h"

namespace earshot::program {

struct ViewNode {
    std::string id;
    std::string kind;           // "input", "output", "op", "call", "param", "state"
    std::string label;          // "conv1d", "self_attn.forward", "mel : Tensor[B, Mels, Frames; T]"
    std::string sublabel;       // "whisper", "LayerNorm<D, T>", "" when none
    std::string group;          // id of the innermost group holding the node, "" at the top
    ScopeId scope = -1;         // call nodes: the collapsed call's scope; -1 for other kinds
    std::string description{};  // op nodes: what the op computes (op_description); "" else
};

struct ViewGroup {
    std::string id;
    std::string kind;      // "call" or "loop"
    std::string label;     // "encoder_layers[layer].forward", "for layer in encoder_layers"
    std::string sublabel;  // calls: the callee's type; loops: the repeat count
    std::string parent;    // "" at the top
    ScopeId scope = -1;    // the call's or loop's scope in the traced graph
};

struct ViewEdge {
    std::string from;
    std::string to;
    std::string label;  // the value's type: `T[B, Frames, Mels]` or the bound `f16[1, 3000, 128]`
    // The value the edge carries in the traced graph (what a tap names, with the loop indices:
    // TappableEdge::value in backend/tap.h).
    ValueId value = kNoValue;
};

struct GraphView {
    std::string name;
    std::vector<ViewNode> nodes;  // program order
    std::vector<ViewGroup> groups;
    std::vector<ViewEdge> edges;
    // With concrete types: the values every generic was bound to, in order ("Frames", "3000").
    std::vector<std::pair<std::string, std::string>> binding;

    const ViewNode* node_labelled(std::string_view label) const;
};

struct ViewOptions {
    int expand_depth = 1;                      // calls nested deeper stay collapsed call nodes
    bool show_params = false;                  // draw param and state nodes
    const ConcreteBinding* binding = nullptr;  // set: concrete dims and dtypes on the labels
    // Per-call overrides of expand_depth, by scope id (ViewNode::scope, ViewGroup::scope). A call
    // in `expand` is drawn as a group however deep it is (once its parent shows); a call in
    // `collapse` as one call node however shallow. `collapse` wins when a call is in both.
    std::set<ScopeId> expand;
    std::set<ScopeId> collapse;
};

GraphView build_view(const Graph& graph, const ViewOptions& options);

std::string to_json(const GraphView& view);  // {"name", "nodes", "groups", "edges"}
std::string to_dot(const GraphView& view);   // Graphviz, top to bottom, groups as dashed clusters

}  // namespace earshot::program
