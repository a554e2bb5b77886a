// GraphEdgeItem: one edge of the graph scene: dot's spline, an arrowhead, and the value's type as
// its label (symbolic in the model's generics or concrete under the binding).
#pragma once

#include <QGraphicsItem>

#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/graph_layout.h"

namespace earshot::ui {

class GraphEdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };

    GraphEdgeItem(const GraphEdge& edge, const EdgeLayout& layout);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    // The stroke of the spline a few pixels wide, its arrowhead and its label: what takes clicks.
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const GraphEdge& edge() const { return m_edge; }
    QString label() const { return m_edge.label; }
    QRectF labelRect() const { return m_labelRect; }

    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }

private:
    GraphEdge m_edge;
    EdgeLayout m_layout;
    QRectF m_labelRect;
    QPainterPath m_arrow;
    bool m_highlighted = false;
};

}  // namespace earshot::ui
