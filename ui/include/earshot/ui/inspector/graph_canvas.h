// GraphCanvas: the QGraphicsView under the graph: zoom (wheel, +/-), pan (drag), fit (0 or F),
// and the expand/collapse gestures (double-click or context menu) on calls.
#pragma once

#include <QGraphicsView>

namespace earshot::ui {

class GraphCanvas : public QGraphicsView {
    Q_OBJECT

public:
    explicit GraphCanvas(QWidget* parent = nullptr);

    qreal zoom() const;  // the current scale, 1 = one scene unit per pixel
    void zoomBy(qreal factor);
    void setZoom(qreal scale);
    void fitGraph();  // the whole scene in view, never enlarged past 1

signals:
    void expandRequested(const QString& callId);
    void collapseRequested(const QString& callId);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    // The call id a gesture at `viewPos` is about and whether it would expand (a call node) or
    // collapse (an expanded call's group); empty when the point holds no call.
    QString callAt(const QPoint& viewPos, bool* expand) const;
};

}  // namespace earshot::ui
