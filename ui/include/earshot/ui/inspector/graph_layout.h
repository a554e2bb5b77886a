// layoutGraph(): places a GraphData with Graphviz's dot, top to bottom: node boxes sized by the
// view's fonts, edge splines with their label positions, and group (cluster) boxes. Scene
// coordinates: y grows downwards, the layout's bounding box starts at (0, 0).
#pragma once

#include <QHash>
#include <QList>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QString>

#include "earshot/ui/inspector/graph_data.h"

namespace earshot::ui {

struct EdgeLayout {
    QPainterPath path;    // the spline, from the tail node's border to the arrow's base
    QPointF arrowBase;    // where the arrowhead starts
    QPointF arrowTip;     // where it ends, on the head node's border
    QPointF labelCentre;  // where dot put the label's centre
};

struct GraphLayout {
    QRectF bounds;
    QHash<QString, QRectF> nodes;         // by node id
    QHash<QString, QRectF> groups;        // by group id
    QHash<QString, QPointF> groupLabels;  // the centre of each group's label, by group id
    QList<EdgeLayout> edges;              // in the order of GraphData::edges
    QString error;                        // set when Graphviz failed; nothing else is then
};

// The DOT text handed to Graphviz (also useful to debug a layout with the `dot` tool).
QString layoutDot(const GraphData& graph);

GraphLayout layoutGraph(const GraphData& graph);

}  // namespace earshot::ui
