// GraphGroupItem: a dashed group box around the nodes of an expanded call or of a loop (drawn once
// with its repeat count), with its label where dot reserved room for it.
#pragma once

#include <QGraphicsItem>
#include <optional>

#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

class GraphGroupItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };

    GraphGroupItem(const GraphGroup& group, const QRectF& rect, const QPointF& labelCentre);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const GraphGroup& group() const { return m_group; }
    bool isCall() const { return m_group.kind == QLatin1String("call"); }
    QRectF rect() const { return m_rect; }
    // The label's area: a double-click there (or the context menu) collapses a call group.
    QRectF labelRect() const;
    // Call groups: the boxed minus left of the label, which a single click collapses; empty
    // for loops.
    QRectF markerRect() const;

    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }
    void setHeat(std::optional<double> share,
                 graph_style::HeatScale scale = graph_style::HeatScale::engineTime);
    std::optional<double> heat() const { return m_heat; }
    graph_style::HeatScale heatScale() const { return m_heatScale; }

private:
    GraphGroup m_group;
    QRectF m_rect;
    QPointF m_labelCentre;
    bool m_highlighted = false;
    std::optional<double> m_heat;
    graph_style::HeatScale m_heatScale = graph_style::HeatScale::engineTime;
};

}  // namespace earshot::ui
