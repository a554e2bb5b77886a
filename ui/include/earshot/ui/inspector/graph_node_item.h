// GraphNodeItem: one node of the graph scene: an op box, a bold call box with an expand marker, or
// an input/output pill; label and sublabel, search highlight and heat fill.
#pragma once

#include <QGraphicsItem>
#include <optional>

#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

class GraphNodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };

    GraphNodeItem(const GraphNode& node, const QRectF& rect);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const GraphNode& node() const { return m_node; }
    bool isCall() const { return m_node.kind == QLatin1String("call"); }
    QRectF rect() const { return m_rect; }
    // Calls: the boxed plus at the left edge, which a single click expands; empty otherwise.
    QRectF markerRect() const;

    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }
    // The share of the engine time (0..1) spent in this call, or under HeatScale::relativeError
    // its output's relative error between two runs; nullopt draws no heat.
    void setHeat(std::optional<double> share,
                 graph_style::HeatScale scale = graph_style::HeatScale::engineTime);
    std::optional<double> heat() const { return m_heat; }
    graph_style::HeatScale heatScale() const { return m_heatScale; }

private:
    GraphNode m_node;
    QRectF m_rect;
    bool m_highlighted = false;
    std::optional<double> m_heat;
    graph_style::HeatScale m_heatScale = graph_style::HeatScale::engineTime;
};

}  // namespace earshot::ui
