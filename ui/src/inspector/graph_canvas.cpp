// Zoom, pan and fit on the graph, and turning double-clicks and context-menu picks on calls into
// expand and collapse requests.
#include "earshot/ui/inspector/graph_canvas.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QGraphicsItem>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "earshot/ui/inspector/graph_edge_item.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_node_item.h"

namespace earshot::ui {

namespace {

constexpr qreal kStep = 1.2;  // one wheel notch or one key press
constexpr qreal kMinZoom = 0.05;
constexpr qreal kMaxZoom = 8.0;

}  // namespace

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setBackgroundBrush(Qt::white);
    setFocusPolicy(Qt::StrongFocus);
}

qreal GraphCanvas::zoom() const { return transform().m11(); }

void GraphCanvas::setZoom(qreal scale) {
    m_placement = Placement::none;
    const qreal clamped = std::clamp(scale, kMinZoom, kMaxZoom);
    setTransform(QTransform::fromScale(clamped, clamped));
}

void GraphCanvas::zoomBy(qreal factor) { setZoom(zoom() * factor); }

void GraphCanvas::fitGraph() {
    m_placement = Placement::fit;
    applyPlacement();
}

void GraphCanvas::openGraph() {
    m_placement = Placement::open;
    applyPlacement();
}

void GraphCanvas::focusOn(const QPointF& scenePoint) {
    m_placement = Placement::none;
    centerOn(scenePoint);
}

void GraphCanvas::applyPlacement() {
    if (m_placement == Placement::none || !scene()) return;
    const QRectF area = scene()->sceneRect();
    if (area.isEmpty()) return;
    const QRectF port = viewport()->rect().adjusted(4, 4, -4, -4);
    const qreal fit = std::min({port.width() / area.width(), port.height() / area.height(), 1.0});
    const qreal scale = m_placement == Placement::fit ? fit : std::max(fit, kReadableZoom);
    setTransform(QTransform::fromScale(std::clamp(scale, kMinZoom, kMaxZoom),
                                       std::clamp(scale, kMinZoom, kMaxZoom)));
    if (scale <= fit) {
        centerOn(area.center());
    } else {
        // Too tall (or wide) to read whole: its top, where the entry starts.
        const qreal visibleHeight = port.height() / scale;
        centerOn(QPointF(area.center().x(),
                         std::min(area.center().y(), area.top() + visibleHeight / 2)));
    }
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    applyPlacement();
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        // A single click on a call's marker opens (+) or closes (-) it, as a double-click does
        // anywhere on the call. The marker takes clicks a few pixels around its box.
        const QPointF at = mapToScene(event->position().toPoint());
        for (QGraphicsItem* item : items(event->position().toPoint())) {
            if (auto* node = qgraphicsitem_cast<GraphNodeItem*>(item)) {
                if (node->isCall() && node->markerRect().adjusted(-4, -4, 4, 4).contains(at)) {
                    Q_EMIT expandRequested(node->node().callId);
                    event->accept();
                    return;
                }
            } else if (auto* group = qgraphicsitem_cast<GraphGroupItem*>(item)) {
                if (group->isCall() && group->markerRect().adjusted(-4, -4, 4, 4).contains(at)) {
                    Q_EMIT collapseRequested(group->group().callId);
                    event->accept();
                    return;
                }
            }
        }
    }
    m_pressPos = event->button() == Qt::LeftButton ? event->position().toPoint() : QPoint(-1, -1);
    m_placement = Placement::none;  // a drag pans: the user places the view from now on
    QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
    const QPoint at = event->position().toPoint();
    const bool click = event->button() == Qt::LeftButton && m_pressPos != QPoint(-1, -1) &&
                       (at - m_pressPos).manhattanLength() < QApplication::startDragDistance();
    m_pressPos = QPoint(-1, -1);
    QGraphicsView::mouseReleaseEvent(event);
    if (!click) return;
    // Edges first: they are drawn over the nodes and groups they pass.
    const QList<QGraphicsItem*> hits = items(at);
    for (QGraphicsItem* item : hits) {
        if (auto* edge = qgraphicsitem_cast<GraphEdgeItem*>(item)) {
            Q_EMIT edgeClicked(edge->edge());
            return;
        }
    }
    for (QGraphicsItem* item : hits) {
        if (auto* node = qgraphicsitem_cast<GraphNodeItem*>(item)) {
            Q_EMIT nodeClicked(node->node().id);
            return;
        }
    }
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
    const qreal notches = event->angleDelta().y() / 120.0;
    if (notches == 0.0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(kStep, notches));
    event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomBy(kStep);
            return;
        case Qt::Key_Minus:
            zoomBy(1.0 / kStep);
            return;
        case Qt::Key_0:
        case Qt::Key_F:
            fitGraph();
            return;
        default:
            QGraphicsView::keyPressEvent(event);
    }
}

QString GraphCanvas::callAt(const QPoint& viewPos, bool* expand) const {
    for (QGraphicsItem* item : items(viewPos)) {
        if (auto* node = qgraphicsitem_cast<GraphNodeItem*>(item)) {
            if (!node->isCall()) return {};
            *expand = true;
            return node->node().callId;
        }
        if (auto* group = qgraphicsitem_cast<GraphGroupItem*>(item)) {
            if (!group->isCall()) continue;  // a loop: look for the call around it
            *expand = false;
            return group->group().callId;
        }
    }
    return {};
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    bool expand = false;
    const QString call = callAt(event->position().toPoint(), &expand);
    if (call.isEmpty()) {
        QGraphicsView::mouseDoubleClickEvent(event);
        return;
    }
    if (expand) {
        Q_EMIT expandRequested(call);
    } else {
        Q_EMIT collapseRequested(call);
    }
    event->accept();
}

void GraphCanvas::contextMenuEvent(QContextMenuEvent* event) {
    bool expand = false;
    const QString call = callAt(event->pos(), &expand);
    QMenu menu(this);
    if (!call.isEmpty() && expand) {
        menu.addAction(tr("Expand"), this, [this, call] { Q_EMIT expandRequested(call); });
    } else if (!call.isEmpty()) {
        menu.addAction(tr("Collapse"), this, [this, call] { Q_EMIT collapseRequested(call); });
    }
    menu.addAction(tr("Zoom in"), this, [this] { zoomBy(kStep); });
    menu.addAction(tr("Zoom out"), this, [this] { zoomBy(1.0 / kStep); });
    menu.addAction(tr("Fit"), this, [this] { fitGraph(); });
    menu.exec(event->globalPos());
}

}  // namespace earshot::ui
