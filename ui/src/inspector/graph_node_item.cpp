// Drawing one graph node: shape by kind, centred label over a grey sublabel, heat and highlight.
#include "earshot/ui/inspector/graph_node_item.h"

#include <QFontMetricsF>
#include <QPainter>

#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

namespace {

constexpr qreal kMargin = 12.0;  // room around the box for the highlight and the heat badge

}  // namespace

GraphNodeItem::GraphNodeItem(const GraphNode& node, const QRectF& rect)
    : m_node(node), m_rect(rect) {
    QString tip = node.sublabel.isEmpty() ? node.label : node.label + u'\n' + node.sublabel;
    if (!node.description.isEmpty()) tip += u'\n' + node.description;
    setToolTip(tip);
    setZValue(2);
}

QRectF GraphNodeItem::boundingRect() const {
    return m_rect.adjusted(-kMargin, -kMargin, kMargin, kMargin);
}

QPainterPath GraphNodeItem::shape() const {
    QPainterPath path;
    path.addRect(m_rect);
    return path;
}

QRectF GraphNodeItem::markerRect() const {
    if (!isCall()) return {};
    return QRectF(m_rect.left() + 6, m_rect.center().y() - 4.5, 9, 9);
}

void GraphNodeItem::setHighlighted(bool on) {
    if (m_highlighted == on) return;
    m_highlighted = on;
    update();
}

void GraphNodeItem::setHeat(std::optional<double> share, graph_style::HeatScale scale) {
    m_heat = share;
    m_heatScale = scale;
    update();
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    const bool call = isCall();
    const bool pill =
        m_node.kind == QLatin1String("input") || m_node.kind == QLatin1String("output");
    const bool member =
        m_node.kind == QLatin1String("param") || m_node.kind == QLatin1String("state");

    QColor fill = Qt::white;
    if (pill) fill = QColor(0xee, 0xf3, 0xfa);
    if (member) fill = QColor(0xfa, 0xf6, 0xe8);
    if (m_heat) fill = graph_style::heatFill(m_heatScale, *m_heat);
    QPen border(graph_style::ink(), call ? 2.0 : 1.0);
    if (m_highlighted) border = QPen(graph_style::highlight(), 3.0);
    painter->setPen(border);
    painter->setBrush(fill);
    const qreal radius = pill ? m_rect.height() / 2 : 3.0;
    painter->drawRoundedRect(m_rect, radius, radius);

    QRectF text = m_rect;
    if (call) {
        // The expand marker: a small boxed plus at the left edge.
        const QRectF box = markerRect();
        painter->setPen(QPen(graph_style::ink(), 1.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(box);
        painter->drawLine(QPointF(box.left() + 2, box.center().y()),
                          QPointF(box.right() - 2, box.center().y()));
        painter->drawLine(QPointF(box.center().x(), box.top() + 2),
                          QPointF(box.center().x(), box.bottom() - 2));
        text.setLeft(text.left() + 14);
    }

    const QFont main = graph_style::labelFont();
    const QFont sub = graph_style::sublabelFont();
    const qreal mainHeight = QFontMetricsF(main).height();
    const qreal subHeight = m_node.sublabel.isEmpty() ? 0.0 : QFontMetricsF(sub).height();
    const qreal top = text.center().y() - (mainHeight + subHeight) / 2;
    painter->setPen(graph_style::ink());
    painter->setFont(main);
    painter->drawText(QRectF(text.left(), top, text.width(), mainHeight), Qt::AlignCenter,
                      m_node.label);
    if (!m_node.sublabel.isEmpty()) {
        painter->setPen(graph_style::sublabelInk());
        painter->setFont(sub);
        painter->drawText(QRectF(text.left(), top + mainHeight, text.width(), subHeight),
                          Qt::AlignCenter, m_node.sublabel);
    }

    if (m_heat) {
        // The share as a badge on the top-right corner.
        const QString value = graph_style::heatBadgeText(m_heatScale, *m_heat);
        const QFontMetricsF metrics(sub);
        const QSizeF size(metrics.horizontalAdvance(value) + 8, metrics.height() + 2);
        const QRectF badge(m_rect.right() - size.width() + 4, m_rect.top() - size.height() / 2,
                           size.width(), size.height());
        painter->setPen(
            QPen(graph_style::heatFill(m_heatScale, graph_style::kErrorHeatHighest), 1.0));
        painter->setBrush(Qt::white);
        painter->drawRoundedRect(badge, 3, 3);
        painter->setFont(sub);
        painter->setPen(graph_style::ink());
        painter->drawText(badge, Qt::AlignCenter, value);
    }
}

}  // namespace earshot::ui
