// TapHeatmap: a 2-D slice of a tapped value as colours, blue below zero, red above, white at zero
// (symmetric around 0 at the slice's largest magnitude); NaN and Inf drawn black.
#pragma once

#include <QWidget>

#include "earshot/ui/inspector/tap_summary.h"

namespace earshot::ui {

class TapHeatmap : public QWidget {
    Q_OBJECT

public:
    explicit TapHeatmap(QWidget* parent = nullptr);

    void setSlice(const TapSlice& slice);
    const TapSlice& slice() const { return m_slice; }
    // The colour `value` is drawn in when the slice's largest magnitude is `scale`.
    static QColor colorOf(float value, float scale);
    float scale() const { return m_scale; }
    QRectF cellRect(int row, int col) const;

    QSize sizeHint() const override { return {320, 220}; }
    QSize minimumSizeHint() const override { return {120, 80}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;  // tooltips: the cell's indices and value

private:
    TapSlice m_slice;
    float m_scale = 0.0F;
};

}  // namespace earshot::ui
