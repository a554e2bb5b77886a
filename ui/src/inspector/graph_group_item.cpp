// Drawing one group: a dashed box (bold dashes for a call, fine ones for a loop), its label and
// sublabel (the callee type or "x count"), heat tint and highlight.
#include "earshot/ui/inspector/graph_group_item.h"

#include <QFontMetricsF>
#include <QPainter>

#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

GraphGroupItem::GraphGroupItem(const GraphGroup& group, const QRectF& rect,
                               const QPointF& labelCentre)
    : m_group(group), m_rect(rect), m_labelCentre(labelCentre) {
    setToolTip(group.sublabel.isEmpty() ? group.label : group.label + u'\n' + group.sublabel);
    setZValue(0);
}

QRectF GraphGroupItem::boundingRect() const {
    QRectF box = m_rect.adjusted(-2, -12, 2, 2);
    if (isCall()) box = box.united(markerRect().adjusted(-1, -1, 1, 1));
    return box;
}

QRectF GraphGroupItem::labelRect() const {
    const QSizeF size = graph_style::groupLabelSize(m_group.label, m_group.sublabel);
    QPointF centre = m_labelCentre;
    if (centre.isNull()) centre = QPointF(m_rect.center().x(), m_rect.top() + size.height() / 2);
    return QRectF(centre.x() - size.width() / 2, centre.y() - size.height() / 2, size.width(),
                  size.height());
}

QRectF GraphGroupItem::markerRect() const {
    if (!isCall()) return {};
    const QRectF label = labelRect();
    return QRectF(label.left() - 13, label.center().y() - 4.5, 9, 9);
}

void GraphGroupItem::setHighlighted(bool on) {
    if (m_highlighted == on) return;
    m_highlighted = on;
    update();
}

void GraphGroupItem::setHeat(std::optional<double> share, graph_style::HeatScale scale) {
    m_heat = share;
    m_heatScale = scale;
    update();
}

void GraphGroupItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    // No heat: no brush at all. A transparent colour would be written to SVG as
    // fill="#000000" fill-opacity="0", which some viewers draw solid black.
    QBrush fill(Qt::NoBrush);
    if (m_heat) {
        QColor tint = graph_style::heatFill(m_heatScale, *m_heat);
        tint.setAlpha(40);  // light: nested groups tint over each other
        fill = QBrush(tint);
    }
    QPen pen(m_highlighted ? graph_style::highlight() : graph_style::groupInk(),
             m_highlighted ? 2.5 : 1.0, isCall() ? Qt::DashLine : Qt::DotLine);
    painter->setPen(pen);
    painter->setBrush(fill);
    painter->drawRoundedRect(m_rect, 4, 4);
    painter->setBrush(Qt::NoBrush);  // the labels below are text only

    const QRectF label = labelRect();
    const QFont main = graph_style::labelFont();
    const QFont sub = graph_style::sublabelFont();
    const qreal mainHeight = QFontMetricsF(main).height();
    const qreal subHeight = m_group.sublabel.isEmpty() ? 0.0 : QFontMetricsF(sub).height();
    const qreal top = label.center().y() - (mainHeight + subHeight) / 2;
    painter->setFont(main);
    painter->setPen(graph_style::ink());
    painter->drawText(QRectF(label.left(), top, label.width(), mainHeight), Qt::AlignCenter,
                      m_group.label);
    if (!m_group.sublabel.isEmpty()) {
        painter->setFont(sub);
        painter->setPen(graph_style::sublabelInk());
        painter->drawText(QRectF(label.left(), top + mainHeight, label.width(), subHeight),
                          Qt::AlignCenter, m_group.sublabel);
    }
    if (isCall()) {
        // The collapse marker: a small boxed minus left of the label.
        const QRectF box = markerRect();
        painter->setPen(QPen(graph_style::ink(), 1.0));
        painter->setBrush(Qt::white);
        painter->drawRect(box);
        painter->drawLine(QPointF(box.left() + 2, box.center().y()),
                          QPointF(box.right() - 2, box.center().y()));
        painter->setBrush(Qt::NoBrush);
    }
    if (m_heat) {
        // The share as a badge on the top border's right end, clear of the label.
        const QString value = graph_style::heatBadgeText(m_heatScale, *m_heat);
        const QFontMetricsF metrics(sub);
        const QSizeF size(metrics.horizontalAdvance(value) + 8, metrics.height() + 2);
        const QRectF badge(m_rect.right() - size.width() - 6, m_rect.top() - size.height() / 2,
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
