// GraphCanvas: the QGraphicsView under the graph: zoom (wheel, +/-), pan (drag), fit (0 or F),
// and the expand/collapse gestures (double-click or context menu) on calls.
#pragma once

#include <QGraphicsView>

#include "earshot/ui/inspector/graph_data.h"

namespace earshot::ui {

class GraphCanvas : public QGraphicsView {
    Q_OBJECT

public:
    explicit GraphCanvas(QWidget* parent = nullptr);

    // Below this scale the edge labels (10 px) are too small to read.
    static constexpr qreal kReadableZoom = 0.9;

    qreal zoom() const;  // the current scale, 1 = one scene unit per pixel
    void zoomBy(qreal factor);
    void setZoom(qreal scale);
    void fitGraph();  // the whole scene in view, never enlarged past 1
    // The view a new graph opens with: all of it when that keeps the text readable, else the
    // readable scale at the top of the graph (where the entry's inputs are), centred across it.
    void openGraph();
    // Centres on `scenePoint` at the current scale (a search match, an opened call).
    void focusOn(const QPointF& scenePoint);

Q_SIGNALS:
    void expandRequested(const QString& callId);
    void collapseRequested(const QString& callId);
    // A click on an edge (its spline, arrow or label), or on a node (anywhere but a call's
    // marker), without dragging.
    void edgeClicked(const earshot::ui::GraphEdge& edge);
    void nodeClicked(const QString& nodeId);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    // The call id a gesture at `viewPos` is about and whether it would expand (a call node) or
    // collapse (an expanded call's group); empty when the point holds no call.
    QString callAt(const QPoint& viewPos, bool* expand) const;
    void applyPlacement();

    // The placement asked for last, applied again whenever the viewport changes size (a graph
    // drawn in a hidden tab is placed once the tab shows it) until the user zooms or pans.
    enum class Placement { none, open, fit };
    Placement m_placement = Placement::none;
    QPoint m_pressPos{-1, -1};  // where the left button went down; (-1, -1): not down
};

}  // namespace earshot::ui
