// Drawing one edge: dot's spline, a filled arrowhead, and the type label on a white backing.
#include "earshot/ui/inspector/graph_edge_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QtMath>

#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

namespace {

QPainterPath arrowHead(const QPointF& base, const QPointF& tip) {
    QPainterPath arrow;
    const QLineF line(base, tip);
    if (line.length() <= 0.0) return arrow;
    const QPointF unit = (tip - base) / line.length();
    const QPointF normal(-unit.y(), unit.x());
    const qreal half = line.length() * 0.35;
    arrow.moveTo(tip);
    arrow.lineTo(base + normal * half);
    arrow.lineTo(base - normal * half);
    arrow.closeSubpath();
    return arrow;
}

}  // namespace

GraphEdgeItem::GraphEdgeItem(const GraphEdge& edge, const EdgeLayout& layout)
    : m_edge(edge), m_layout(layout), m_arrow(arrowHead(layout.arrowBase, layout.arrowTip)) {
    const QSizeF size = graph_style::edgeLabelSize(edge.label);
    m_labelRect = QRectF(layout.labelCentre.x() - size.width() / 2,
                         layout.labelCentre.y() - size.height() / 2, size.width(), size.height());
    setToolTip(edge.label);
    setZValue(1);
}

QRectF GraphEdgeItem::boundingRect() const {
    QRectF box = m_layout.path.boundingRect().united(m_arrow.boundingRect());
    if (!m_edge.label.isEmpty()) box = box.united(m_labelRect);
    return box.adjusted(-3, -3, 3, 3);
}

QPainterPath GraphEdgeItem::shape() const {
    QPainterPathStroker stroker;
    stroker.setWidth(8.0);
    QPainterPath area = stroker.createStroke(m_layout.path);
    area.addPath(m_arrow);
    if (!m_edge.label.isEmpty()) area.addRect(m_labelRect);
    return area;
}

void GraphEdgeItem::setHighlighted(bool on) {
    if (m_highlighted == on) return;
    m_highlighted = on;
    update();
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    const QColor ink = m_highlighted ? graph_style::highlight() : graph_style::edgeInk();
    painter->setPen(QPen(ink, m_highlighted ? 2.0 : 1.0));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_layout.path);
    painter->setBrush(ink);
    painter->drawPath(m_arrow);
    if (m_edge.label.isEmpty()) return;
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(255, 255, 255, 220));
    painter->drawRect(m_labelRect);
    painter->setFont(graph_style::edgeFont());
    painter->setPen(m_highlighted ? graph_style::highlight() : graph_style::edgeLabelInk());
    painter->drawText(m_labelRect, Qt::AlignCenter, m_edge.label);
}

}  // namespace earshot::ui
