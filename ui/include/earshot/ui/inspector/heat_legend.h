// HeatLegend: the colour scale of the graph's heat as a labelled bar: the engine time's share
// (0% .. 100%) or the compared runs' relative error (1e-6 .. 1, logarithmic).
#pragma once

#include <QWidget>

#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

class HeatLegend : public QWidget {
    Q_OBJECT

public:
    explicit HeatLegend(QWidget* parent = nullptr);

    void setScale(graph_style::HeatScale scale);
    graph_style::HeatScale scale() const { return m_scale; }
    // The tick labels drawn under the bar, left to right.
    QStringList tickLabels() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    graph_style::HeatScale m_scale = graph_style::HeatScale::engineTime;
};

}  // namespace earshot::ui
