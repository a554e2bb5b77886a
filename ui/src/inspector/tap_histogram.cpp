// TapHistogram: bars scaled to the largest count, the low and high ends labelled below.
#include "earshot/ui/inspector/tap_histogram.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace earshot::ui {

namespace {
constexpr int kAxisHeightPx = 18;
constexpr int kMarginPx = 4;
}  // namespace

TapHistogram::TapHistogram(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tapHistogram"));
}

void TapHistogram::setHistogram(const std::vector<qint64>& counts, double lo, double hi) {
    m_counts = counts;
    m_lo = lo;
    m_hi = hi;
    update();
}

QRectF TapHistogram::plotRect() const {
    return QRectF(rect()).adjusted(kMarginPx, kMarginPx, -kMarginPx, -kAxisHeightPx);
}

QRectF TapHistogram::barRect(int index) const {
    if (index < 0 || index >= static_cast<int>(m_counts.size())) return {};
    const QRectF plot = plotRect();
    const qint64 most = *std::max_element(m_counts.begin(), m_counts.end());
    const double w = plot.width() / static_cast<double>(m_counts.size());
    const double h = most > 0 ? plot.height() *
                                    static_cast<double>(m_counts[static_cast<size_t>(index)]) /
                                    static_cast<double>(most)
                              : 0.0;
    return {plot.left() + index * w, plot.bottom() - h, w, h};
}

void TapHistogram::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QRectF plot = plotRect();
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    if (m_counts.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(plot, Qt::AlignCenter, tr("no finite values"));
        return;
    }
    for (int i = 0; i < static_cast<int>(m_counts.size()); ++i) {
        painter.fillRect(barRect(i).adjusted(0.5, 0, -0.5, 0), QColor(70, 130, 200));
    }
    painter.setPen(palette().color(QPalette::Text));
    const QRectF axis(plot.left(), plot.bottom() + 2, plot.width(), kAxisHeightPx - 2);
    painter.drawText(axis, Qt::AlignLeft | Qt::AlignVCenter, QString::number(m_lo, 'g', 4));
    painter.drawText(axis, Qt::AlignRight | Qt::AlignVCenter, QString::number(m_hi, 'g', 4));
}

bool TapHistogram::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && !m_counts.empty()) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QRectF plot = plotRect();
        const auto bins = static_cast<int>(m_counts.size());
        const int i = std::clamp(
            static_cast<int>((help->pos().x() - plot.left()) / plot.width() * bins), 0, bins - 1);
        const double w = (m_hi - m_lo) / bins;
        QToolTip::showText(help->globalPos(), tr("[%1, %2): %3")
                                                  .arg(m_lo + i * w, 0, 'g', 4)
                                                  .arg(m_lo + (i + 1) * w, 0, 'g', 4)
                                                  .arg(m_counts[static_cast<size_t>(i)]));
        return true;
    }
    return QWidget::event(event);
}

}  // namespace earshot::ui
