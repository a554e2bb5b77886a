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

QRectF GraphGroupItem::boundingRect() const { return m_rect.adjusted(-2, -2, 2, 2); }

QRectF GraphGroupItem::labelRect() const {
    const QFontMetricsF main(graph_style::labelFont());
    const QFontMetricsF sub(graph_style::sublabelFont());
    qreal width = main.horizontalAdvance(m_group.label);
    qreal height = main.height();
    if (!m_group.sublabel.isEmpty()) {
        width = std::max(width, sub.horizontalAdvance(m_group.sublabel));
        height += sub.height();
    }
    QPointF centre = m_labelCentre;
    if (centre.isNull()) centre = QPointF(m_rect.center().x(), m_rect.top() + height / 2 + 4);
    return QRectF(centre.x() - width / 2, centre.y() - height / 2, width, height);
}

void GraphGroupItem::setHighlighted(bool on) {
    if (m_highlighted == on) return;
    m_highlighted = on;
    update();
}

void GraphGroupItem::setHeat(std::optional<double> share) {
    m_heat = share;
    update();
}

void GraphGroupItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    QColor fill(0, 0, 0, 0);
    if (m_heat) {
        fill = graph_style::heatFill(*m_heat);
        fill.setAlpha(90);
    }
    QPen pen(m_highlighted ? graph_style::highlight() : graph_style::groupInk(),
             m_highlighted ? 2.5 : 1.0, isCall() ? Qt::DashLine : Qt::DotLine);
    painter->setPen(pen);
    painter->setBrush(fill);
    painter->drawRoundedRect(m_rect, 4, 4);

    const QRectF label = labelRect();
    const QFont main = graph_style::labelFont();
    const qreal mainHeight = QFontMetricsF(main).height();
    painter->setFont(main);
    painter->setPen(graph_style::ink());
    QString title = m_group.label;
    painter->drawText(QRectF(label.left() - 40, label.top(), label.width() + 80, mainHeight),
                      Qt::AlignCenter, title);
    if (!m_group.sublabel.isEmpty()) {
        painter->setFont(graph_style::sublabelFont());
        painter->setPen(graph_style::sublabelInk());
        painter->drawText(QRectF(label.left() - 40, label.top() + mainHeight, label.width() + 80,
                                 label.height() - mainHeight),
                          Qt::AlignCenter, m_group.sublabel);
    }
    if (m_heat) {
        painter->setFont(graph_style::sublabelFont());
        painter->setPen(graph_style::ink());
        painter->drawText(m_rect.adjusted(6, 4, -6, -4), Qt::AlignTop | Qt::AlignRight,
                          QStringLiteral("%1%").arg(qRound(*m_heat * 100.0)));
    }
}

}  // namespace earshot::ui
