// TapHistogram: a tapped value's histogram as bars over its range, the range written under it.
#pragma once

#include <QWidget>
#include <vector>

namespace earshot::ui {

class TapHistogram : public QWidget {
    Q_OBJECT

public:
    explicit TapHistogram(QWidget* parent = nullptr);

    // Bin counts over [lo, hi]; empty clears.
    void setHistogram(const std::vector<qint64>& counts, double lo, double hi);
    const std::vector<qint64>& counts() const { return m_counts; }
    double low() const { return m_lo; }
    double high() const { return m_hi; }
    // Where bin `index`'s bar is drawn (its full height when the count is the largest).
    QRectF barRect(int index) const;

    QSize sizeHint() const override { return {320, 110}; }
    QSize minimumSizeHint() const override { return {160, 80}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;  // tooltips: a bin's range and count

private:
    QRectF plotRect() const;

    std::vector<qint64> m_counts;
    double m_lo = 0.0;
    double m_hi = 0.0;
};

}  // namespace earshot::ui
